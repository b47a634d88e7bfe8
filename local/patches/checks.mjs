// Every patch of the local runtime, each with the check that what it patches still looks as it expects
// (local/README.md, "Patches"). `npm ci` runs them all after applying the patches (local/postinstall.mjs);
// tests/unit/offline-patch-checks.test.ts runs them against the installed packages and against drifted ones.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { originalBundle } from '../embedded/postgisBundle.mjs';
import drift from './drift.cjs';
import { checkDlsymPatch } from './pgliteDlsym.mjs';

const require = createRequire(import.meta.url);
const { PatchDriftError, expectSource } = drift;

/** The patch-package patches (local/patches/*.patch): each patched file, with a line only the patch adds. */
export const PATCHED_FILES = [
  ['postgres', 'node_modules/postgres/src/connection.js', 'sent.remove(q)'],
  ['postgres', 'node_modules/postgres/cjs/src/connection.js', 'sent.remove(q)'],
  ['postgres', 'node_modules/postgres/src/connection.js', 'x.setNoDelay(true)'],
  ['postgres', 'node_modules/postgres/cjs/src/connection.js', 'x.setNoDelay(true)'],
  [
    'serverless-offline',
    'node_modules/serverless-offline/src/events/websocket/lambda-events/WebSocketConnectEvent.js',
    'requestContext.identity.sourceIp = this.#sourceIp',
  ],
  ['vt-pbf', 'node_modules/vt-pbf/index.js', '!Number.isSafeInteger(value)'],
];

/** Throws unless every file patched by patch-package for `name` holds the patch's line. */
function patchPackageApplied(name, root) {
  for (const [pkg, file, line] of PATCHED_FILES)
    if (pkg === name) expectSource(`patch-package ${name}`, join(root, file), [line]);
}

/** Throws unless pglite-postgis still ships its bundle where local/embedded/postgisBundle.mjs trims it from. */
function postgisBundleFound() {
  let file;
  try {
    file = originalBundle();
  } catch (e) {
    throw new PatchDriftError('postgis-bundle', `@electric-sql/pglite-postgis is not found (${e.message})`);
  }
  if (!existsSync(file)) throw new PatchDriftError('postgis-bundle', `${file} is missing`);
  const setup = readFileSync(require.resolve('@electric-sql/pglite-postgis'), 'utf8');
  if (!setup.includes('bundlePath'))
    throw new PatchDriftError('postgis-bundle', "pglite-postgis's setup() no longer returns a bundlePath");
}

/** serverless-offline plugins of local/offline/: each exports `target(servicePath)`, which throws on drift. */
const offline = (name) => ({
  name: `offline/${name}`,
  check: (root) => require(`../offline/${name}.cjs`).target(root),
});

/** Every patch, by the name its PatchDriftError and local/README.md give it. */
export const PATCHES = [
  { name: 'patch-package postgres', check: (root) => patchPackageApplied('postgres', root) },
  {
    name: 'patch-package serverless-offline',
    check: (root) => patchPackageApplied('serverless-offline', root),
  },
  { name: 'patch-package vt-pbf', check: (root) => patchPackageApplied('vt-pbf', root) },
  { name: 'pglite-dlsym', check: () => checkDlsymPatch() },
  { name: 'postgis-bundle', check: () => postgisBundleFound() },
  offline('cors'),
  offline('failure-shape'),
  offline('fast-gzip'),
  offline('handler-cache'),
  offline('keep-alive'),
  offline('lambda-timeout'),
  offline('websocket-limits'),
  offline('websocket-on-http-port'),
];

/** Runs every check against the install under `root`; returns the failures (empty: every patch fits). */
export async function checkPatches(root) {
  const failures = [];
  for (const p of PATCHES) {
    try {
      await p.check(root);
    } catch (e) {
      failures.push({ name: p.name, message: e.message });
    }
  }
  return failures;
}
