// Bundles every Lambda handler (functions/**/*.ts) and the TypeScript tools (scripts/*.ts, bench/*.ts)
// with esbuild into dist/, as ESM for Node 20/22. `node scripts/build.mjs` builds once.
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
  return [...tsFiles('functions'), ...tsFiles('scripts'), ...tsFiles('bench')];
}

export function buildOptions() {
  return {
    absWorkingDir: root,
    entryPoints: entryPoints(),
    outdir: 'dist',
    outbase: '.',
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'warning',
    // CJS dependencies inside an ESM bundle need `require`.
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
    // gdal3.js loads its WebAssembly and data files from beside itself (lib/rasters/projWkt.ts).
    external: ['@electric-sql/pglite', '@electric-sql/pglite-postgis', 'esbuild', 'gdal3.js'],
    plugins: [
      apiRoutesPlugin(root),
      dependenciesPatchedPlugin(),
      {
        name: 'write-package-json',
        setup(build) {
          build.onEnd(async () => {
            await mkdir(join(root, 'dist'), { recursive: true });
            await writeFile(join(root, 'dist/package.json'), '{"type":"module"}\n');
          });
        },
      },
    ],
  };
}

/**
 * The dependencies patched by `npm ci`'s postinstall (patch-package, patches/), each with a line only the
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
              errors: [{ text: `${f} is not patched: run \`npm ci\` (its postinstall applies patches/)` }],
            };
        }
      });
    },
  };
}

export async function buildOnce() {
  const started = Date.now();
  await Promise.all([esbuild.build(buildOptions()), buildWeb()]);
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
  'bench',
  'web',
  'sql',
  'serverless.yml',
  'serverless',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'patches',
];
const STAMP = join(root, 'dist', '.inputs-sha1');

/** SHA-1 of every input file's path and bytes, in a stable order. */
export function inputsHash() {
  const hash = createHash('sha1');
  const add = (p) => {
    const abs = join(root, p);
    if (!existsSync(abs)) return;
    if (statSync(abs).isDirectory()) for (const n of readdirSync(abs).sort()) add(join(p, n));
    else hash.update(p).update(readFileSync(abs));
  };
  for (const p of INPUTS) add(p);
  return hash.digest('hex');
}

if (process.argv[1] && relative(process.argv[1], fileURLToPath(import.meta.url)) === '') {
  // `npm test` and the benches build first; when nothing they read changed since the last build (the
  // second and third database modes of CI), the build is skipped. `--force` builds anyway.
  const hash = inputsHash();
  if (!process.argv.includes('--force') && existsSync(STAMP) && readFileSync(STAMP, 'utf8') === hash) {
    console.log('dist/ is up to date with its sources: build skipped');
  } else {
    await rm(STAMP, { force: true });
    const ms = await buildOnce();
    await writeFile(STAMP, hash);
    console.log(`built ${entryPoints().length} entry points into dist/ in ${ms} ms`);
  }
}
