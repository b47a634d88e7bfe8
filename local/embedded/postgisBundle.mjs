import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import { postgis } from '@electric-sql/pglite-postgis';
import drift from '../patches/drift.cjs';

/**
 * PGlite loads an extension's whole bundle at every start: it unpacks it into its in-memory file system and
 * compiles every WebAssembly library in it. pglite-postgis's bundle holds three (postgis, postgis_raster,
 * postgis_topology: 48 MB of WebAssembly) and 95 MB of files with the upgrade scripts of every earlier
 * version; the service creates `postgis` alone. Measured on one start: 540 MB of the embedded database's
 * RSS and about 2 s of its 5.6 s opening (at a load average of 10) went to that bundle.
 *
 * `trimmedPostgis()` is pglite-postgis's extension with a bundle of what `create extension postgis` and
 * its functions read: `postgis-3.so`, the extension's control file and install script, and PROJ's data.
 * The bundle is made once from the package's own and kept under `node_modules/.cache/`, named by the
 * original's size and time, so an upgrade of the package makes a new one. `npm ci` makes it
 * (local/postinstall.mjs, about 2 s), so that the first start does not; a start that finds it
 * missing makes it. Plain JavaScript, so that the install can run it without a build. A pglite-postgis whose
 * setup no longer names its bundle by a file URL stops the start (local/patches/drift.cjs).
 */

/** pglite-postgis's own bundle. */
export function originalBundle() {
  return join(
    dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite-postgis')),
    'postgis.tar.gz',
  );
}

/** Files of the bundle the service does without: the other extensions, upgrade and legacy scripts. */
export function unneeded(name) {
  return (
    /raster|topology|tiger|address_standardizer|sfcgal/.test(name) ||
    /--ANY|unpackaged|--\d+\.\d+\.\d+--/.test(name) ||
    name.startsWith('share/postgresql/contrib/')
  );
}

const BLOCK = 512;

/** A ustar header's field as text (NUL-terminated). */
function field(buf, at, len) {
  const s = buf.toString('latin1', at, at + len);
  const nul = s.indexOf('\0');
  return nul < 0 ? s : s.slice(0, nul);
}

/**
 * The entries of tar archive `tar` for which `keep(name)` holds, as a tar archive. Entries are copied as
 * they are (their headers' checksums stay valid); a pax or GNU long-name header goes with the entry it
 * describes.
 */
export function filterTar(tar, keep) {
  const out = [];
  let pending = [];
  let longName = null;
  for (let at = 0; at + BLOCK <= tar.length; ) {
    const header = tar.subarray(at, at + BLOCK);
    if (header.every((b) => b === 0)) break;
    const size = Number.parseInt(field(header, 124, 12).trim() || '0', 8);
    const span = BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    const entry = tar.subarray(at, at + span);
    const type = String.fromCharCode(header[156] ?? 0);
    at += span;
    if (type === 'x' || type === 'L' || type === 'g') {
      if (type === 'L') longName = field(tar, at - span + BLOCK, size);
      pending.push(entry);
      continue;
    }
    const prefix = field(header, 345, 155);
    const name = longName ?? (prefix ? `${prefix}/` : '') + field(header, 0, 100);
    if (keep(name.replace(/^\.\//, ''))) out.push(...pending, entry);
    pending = [];
    longName = null;
  }
  out.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(out);
}

/** Where the trimmed bundle of `original` is kept (made when missing). */
export function trimmedBundle(original = originalBundle()) {
  const st = statSync(original);
  const dir = resolve('node_modules/.cache/mmgis-postgis');
  const file = join(dir, `postgis-${st.size}-${Math.floor(st.mtimeMs)}.tar.gz`);
  if (existsSync(file)) return file;
  mkdirSync(dir, { recursive: true });
  const trimmed = filterTar(gunzipSync(readFileSync(original)), (name) => !unneeded(name));
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, gzipSync(trimmed, { level: 1 }));
  renameSync(tmp, file);
  return file;
}

/** pglite-postgis's extension, loading the trimmed bundle (the package's own if it cannot be made). */
export function trimmedPostgis() {
  return {
    name: 'postgis',
    async setup(pg, emscriptenOpts) {
      const result = await postgis.setup(pg, emscriptenOpts);
      if (!(result.bundlePath instanceof URL) || result.bundlePath.protocol !== 'file:')
        throw new drift.PatchDriftError(
          'postgis-bundle',
          "pglite-postgis's setup() gave no file URL as its bundlePath",
        );
      // A bundle that cannot be made here (a read-only node_modules) leaves the package's own.
      try {
        return { ...result, bundlePath: pathToFileURL(trimmedBundle(fileURLToPath(result.bundlePath))) };
      } catch {
        return result;
      }
    },
  };
}
