// Bundles every Lambda handler (functions/**/*.ts) and the TypeScript tools (local/**/*.ts, bench/*.ts)
// with esbuild into dist/, as ESM for Node 20/22: one self-contained bundle per function, as it is packaged
// and deployed. `node scripts/build.mjs` builds once, and builds the local build (below) too.
//
// The local build (`localBuildOptions`, `buildLocal`) is what `npm start`, `npm run dev` and the tests' and
// benches' service run through serverless-offline (its `location`, OFFLINE_LOCATION): the handlers and
// scripts with their shared code in shared chunks and without source maps, under dist/offline/. It builds
// in about 2 s where the per-function bundles take about a minute (their 130 copies of lib/ and the AWS
// SDK, and their source maps, are about 560 MB), and one process loading every function holds one copy of
// each module instead of one per function (docs/connections.md, "One process").
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { apiRoutesPlugin } from './apiRoutes.mjs';
import { buildWeb } from './buildWeb.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

function tsFiles(dir) {
  const abs = join(root, dir);
  let out = [];
  let names;
  try {
    names = readdirSync(abs);
  } catch {
    return out;
  }
  for (const name of names) {
    const p = join(abs, name);
    if (statSync(p).isDirectory()) out = out.concat(tsFiles(join(dir, name)));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(join(dir, name));
  }
  return out;
}

export function entryPoints() {
  return [...tsFiles('functions'), ...tsFiles('local'), ...tsFiles('bench')];
}

export function buildOptions() {
  return {
    ...commonOptions(),
    entryPoints: entryPoints(),
    outdir: 'dist',
    sourcemap: 'linked',
    plugins: [apiRoutesPlugin(root), dependenciesPatchedPlugin(), writePackageJson('dist')],
  };
}

/** What the per-function bundles and the local build share. */
function commonOptions() {
  return {
    absWorkingDir: root,
    outbase: '.',
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
    // CJS dependencies inside an ESM bundle need `require`.
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
    // gdal3.js loads its WebAssembly and data files from beside itself (lib/rasters/projWkt.ts).
    external: ['@electric-sql/pglite', '@electric-sql/pglite-postgis', 'esbuild', 'gdal3.js'],
  };
}

/** Marks the bundles under `dir` as ES modules. */
function writePackageJson(dir) {
  return {
    name: 'write-package-json',
    setup(build) {
      build.onEnd(async () => {
        await mkdir(join(root, dir), { recursive: true });
        await writeFile(join(root, dir, 'package.json'), '{"type":"module"}\n');
      });
    },
  };
}

/**
 * The dependencies patched by `npm ci`'s postinstall (patch-package, local/patches/), each with a line only the
 * patched file holds. postgres.js: a query that fails while it is built no longer gives every later query
 * on its connection the answer of the one before (docs/connections.md, "A query that fails before it is
 * sent"). vt-pbf: an integer past 2^53 is written as a double, not a varint that throws (docs/tiles.md).
 */
const PATCHED = [
  ['node_modules/postgres/src/connection.js', 'sent.remove(q)'],
  ['node_modules/postgres/cjs/src/connection.js', 'sent.remove(q)'],
  ['node_modules/vt-pbf/index.js', 'Number.isSafeInteger(value)'],
];

/** Refuses to bundle an unpatched dependency. */
function dependenciesPatchedPlugin() {
  return {
    name: 'dependencies-patched',
    setup(build) {
      build.onStart(() => {
        for (const [f, marker] of PATCHED) {
          if (!readFileSync(join(root, f), 'utf8').includes(marker))
            return {
              errors: [
                { text: `${f} is not patched: run \`npm ci\` (its postinstall applies local/patches/)` },
              ],
            };
        }
      });
    },
  };
}

export async function buildOnce() {
  const started = Date.now();
  await Promise.all([esbuild.build(buildOptions()), buildWeb()]);
  await buildLocal();
  return Date.now() - started;
}

// ---- The local build (`npm start`, `npm run dev`, the tests' and benches' service) ----

/**
 * serverless-offline's `location` for the local build: it finds handler `dist/functions/x.handler` at
 * `dist/offline/dist/functions/x.js` (serverless.yml, `custom.serverless-offline.location`).
 */
export const LOCAL_LOCATION = 'dist/offline';
const LOCAL_OUT = `${LOCAL_LOCATION}/dist`;
const LOCAL_STAMP = join(root, LOCAL_LOCATION, '.inputs-sha1');

/** The handlers and scripts, their shared code in chunks (`splitting`), without source maps. */
export function localBuildOptions() {
  return {
    ...commonOptions(),
    entryPoints: [...tsFiles('functions'), ...tsFiles('local')],
    outdir: LOCAL_OUT,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    sourcemap: false,
    plugins: [apiRoutesPlugin(root), dependenciesPatchedPlugin(), writePackageJson(LOCAL_OUT)],
  };
}

/** What the local build reads (the benches are not in it). */
const localInputs = () => INPUTS.filter((p) => p !== 'bench');

/**
 * Builds the local build and its web pages (functions/web/serve.ts reads them from beside the bundles).
 * Files are overwritten in place, not removed first: a service already running from this folder (another
 * `npm start`, the tests' service) keeps finding its modules. Chunks no longer built are removed afterwards.
 */
export async function buildLocal() {
  await rm(LOCAL_STAMP, { force: true });
  const hash = inputsHash(localInputs());
  const [result] = await Promise.all([
    esbuild.build({ ...localBuildOptions(), metafile: true }),
    buildWeb(join(root, LOCAL_OUT, 'web')),
  ]);
  const built = new Set(Object.keys(result.metafile.outputs).map((f) => join(root, f)));
  const chunks = join(root, LOCAL_OUT, 'chunks');
  for (const name of existsSync(chunks) ? readdirSync(chunks) : [])
    if (!built.has(join(chunks, name))) await rm(join(chunks, name), { force: true });
  await writeFile(LOCAL_STAMP, hash);
}

/** `npm start`: builds the local build only when a source changed since it was last built; returns the ms spent. */
export async function buildLocalIfChanged() {
  const started = Date.now();
  if (existsSync(LOCAL_STAMP) && readFileSync(LOCAL_STAMP, 'utf8') === inputsHash(localInputs())) return null;
  await buildLocal();
  return Date.now() - started;
}

/**
 * Everything a build reads: the sources of the bundles and pages, the routes of serverless.yml (the
 * OpenAPI document's `api-routes:all`, scripts/apiRoutes.mjs), and what decides the dependencies.
 */
const INPUTS = [
  'functions',
  'lib',
  'scripts',
  'local',
  'bench',
  'web',
  'sql',
  'serverless.yml',
  'serverless',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
];
const STAMP = join(root, 'dist', '.inputs-sha1');

/** SHA-1 of every input file's path and bytes, in a stable order. */
export function inputsHash(inputs = INPUTS) {
  const hash = createHash('sha1');
  const add = (p) => {
    const abs = join(root, p);
    if (!existsSync(abs)) return;
    if (statSync(abs).isDirectory()) for (const n of readdirSync(abs).sort()) add(join(p, n));
    else hash.update(p).update(readFileSync(abs));
  };
  for (const p of inputs) add(p);
  return hash.digest('hex');
}

if (process.argv[1] && relative(process.argv[1], fileURLToPath(import.meta.url)) === '') {
  // `npm test` and the benches build first; when nothing they read changed since the last build (the
  // second and third database modes of CI), the build is skipped. `--force` builds anyway.
  const hash = inputsHash();
  if (!process.argv.includes('--force') && existsSync(STAMP) && readFileSync(STAMP, 'utf8') === hash) {
    const ms = await buildLocalIfChanged();
    console.log(
      ms === null
        ? 'dist/ is up to date with its sources: build skipped'
        : `dist/ is up to date with its sources; the local build took ${ms} ms`,
    );
  } else {
    await rm(STAMP, { force: true });
    const ms = await buildOnce();
    await writeFile(STAMP, hash);
    console.log(`built ${entryPoints().length} entry points into dist/ in ${ms} ms`);
  }
}
