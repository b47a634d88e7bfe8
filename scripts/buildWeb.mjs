// Builds the web pages (web/, docs/web.md) with esbuild into dist/web: content-hashed assets under
// dist/web/assets and one HTML file per page that names them. Called by scripts/build.mjs.
import { createHash } from 'node:crypto';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Copies a file into `assets` under a name carrying the first 10 hex digits of its SHA-256; returns the new name. */
async function copyHashed(src, assets) {
  const buf = await readFile(src);
  const hash = createHash('sha256').update(buf).digest('hex').slice(0, 10);
  const name = basename(src).replace(/(\.[a-z]+)$/, `-${hash}$1`);
  await copyFile(src, join(assets, name));
  return name;
}

const pages = {
  index: { entry: 'web/viewer/main.ts', title: 'Map viewer' },
  configure: { entry: 'web/configure/main.tsx', title: 'Configure' },
};

function html(title, { js, css, icon }) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="icon" href="/assets/${icon}" type="image/svg+xml">
${css.map((c) => `<link rel="stylesheet" href="/assets/${c}">`).join('\n')}
<script type="module" src="/assets/${js}"></script>
</head>
<body>
<noscript>This page needs JavaScript.</noscript>
<div id="app"></div>
</body>
</html>
`;
}

/** Builds the pages into `out` (default dist/web; the local build's copy is beside its bundles). */
export async function buildWeb(out = join(root, 'dist/web')) {
  const assets = join(out, 'assets');
  await rm(out, { recursive: true, force: true });
  await mkdir(assets, { recursive: true });
  // MapLibre 6 runs its worker from its own module file; it is shipped beside the bundles, hashed.
  const worker = await copyHashed(join(root, 'node_modules/maplibre-gl/dist/maplibre-gl-worker.mjs'), assets);
  const icon = await copyHashed(join(root, 'web/favicon.svg'), assets);
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: Object.fromEntries(Object.entries(pages).map(([name, p]) => [name, p.entry])),
    outdir: assets,
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    assetNames: '[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome111', 'firefox115', 'safari16.4'],
    minify: true,
    sourcemap: false,
    metafile: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    define: { MAPLIBRE_WORKER_URL: JSON.stringify(`/assets/${worker}`) },
    logLevel: 'warning',
  });
  for (const [file, meta] of Object.entries(result.metafile.outputs)) {
    if (!meta.entryPoint) continue;
    const name = Object.keys(pages).find((n) => pages[n].entry === meta.entryPoint);
    const css = meta.cssBundle ? [basename(meta.cssBundle)] : [];
    await writeFile(join(out, `${name}.html`), html(pages[name].title, { js: basename(file), css, icon }));
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await buildWeb();
