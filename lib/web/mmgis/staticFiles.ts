import { readFile, realpath, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { contentTypeOf } from '#lib/missionFiles/contentType.ts';

/**
 * The build's static folders, mounted where MMGIS's server mounts them (docs/mission-site.md), and
 * whether MMGIS puts them behind its login (`ensureUser`). `/Missions` is not here: the mission data root
 * serves it (docs/mission-site.md).
 */
export const MOUNTS: { url: string; folder: string; login: boolean }[] = [
  { url: '/build', folder: 'build', login: true },
  { url: '/documentation', folder: 'documentation', login: false },
  { url: '/docs/helps', folder: 'docs/helps', login: false },
  { url: '/README.md', folder: 'README.md', login: false },
  { url: '/config/login', folder: 'config/login', login: false },
  { url: '/config/css', folder: 'config/css', login: true },
  { url: '/config/js', folder: 'config/js', login: true },
  { url: '/config/pre', folder: 'config/pre', login: true },
  { url: '/config/fonts', folder: 'config/fonts', login: true },
  { url: '/configure/build', folder: 'configure/build', login: true },
  { url: '/configure/public', folder: 'configure/public', login: true },
  { url: '/public', folder: 'public', login: false },
];

/** A static file of the build: where it is and whether MMGIS asks for a login first. */
export interface StaticTarget {
  file: string;
  login: boolean;
  /** Content-hashed (webpack's `static/` folders): cached for a year. */
  immutable: boolean;
}

/**
 * The file a URL path names below its mount, or null (no mount, `..`, a dotfile, outside the folder).
 * MMGIS's static server (express) matches mounts without regard to case, as here.
 */
export function staticTarget(dir: string, urlPath: string): StaticTarget | null {
  const lower = urlPath.toLowerCase();
  const mount = MOUNTS.find(
    (m) => lower === m.url.toLowerCase() || lower.startsWith(`${m.url.toLowerCase()}/`),
  );
  if (!mount) return null;
  const rest = urlPath
    .slice(mount.url.length)
    .split('/')
    .filter((s) => s !== '' && s !== '.');
  if (rest.some((s) => s === '..' || s.startsWith('.') || s.includes('\\') || s.includes('\0'))) return null;
  const base = resolve(dir, mount.folder);
  const file = rest.length ? join(base, ...rest) : base;
  if (file !== base && !file.startsWith(base + sep)) return null;
  return { file, login: mount.login, immutable: rest.includes('static') };
}

export interface StaticFile {
  body: Buffer;
  contentType: string;
  etag: string;
  modified: Date;
}

/** Reads a static file of the build (a folder reads its `index.html`); null when missing or a symlink out. */
export async function readStaticFile(dir: string, file: string): Promise<StaticFile | null> {
  try {
    let real = await realpath(file);
    const root = await realpath(dir);
    if (!real.startsWith(root + sep)) return null;
    let st = await stat(real);
    if (st.isDirectory()) {
      real = join(real, 'index.html');
      st = await stat(real);
    }
    if (!st.isFile()) return null;
    return {
      body: await readFile(real),
      contentType: contentTypeOf(real),
      etag: `"${st.size.toString(36)}-${Math.floor(st.mtimeMs).toString(36)}"`,
      modified: new Date(Math.floor(st.mtimeMs)),
    };
  } catch {
    return null;
  }
}

/** The Content-Security-Policy MMGIS's server sends (its helmet settings): the client needs inline and eval. */
export const MMGIS_CSP = [
  "default-src 'self' blob: 'unsafe-inline' 'unsafe-eval'",
  "img-src * data: blob: 'unsafe-inline'",
  "style-src * data: blob: 'unsafe-inline'",
  "font-src * data: blob: 'unsafe-inline'",
  'connect-src *',
  "frame-ancestors 'none'",
  "frame-src 'none'",
].join('; ');
