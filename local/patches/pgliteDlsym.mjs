// Applied by `npm ci`/`npm install` (package.json postinstall: local/postinstall.mjs), after patch-package.
//
// PGlite's dlsym (Emscripten's `__dlsym_js`) finds a symbol's index with `Object.keys(lib.exports).indexOf(name)`:
// it lists every export of the library on each lookup. PostGIS's library exports thousands of symbols, and
// PostgreSQL looks up two symbols per C function it defines or first calls, so `create extension postgis`
// (599 C functions) spent about 7 of its 9 s listing exports (docs/connections.md, "The embedded database's
// first start"). The patch keeps each library's export names in a Map, made on its first lookup; a name added
// later is still found by the original listing. The files are minified (one line of about 300 KB), so the
// patch is this exact replacement rather than a patch-package diff. The file that holds the lookup is found
// by its text (PGlite 0.5.17 moved it from index.js into a chunk): a PGlite in which no bundle holds the
// expression, patched or not, stops the install (local/patches/drift.cjs).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import drift from './drift.cjs';

const { PatchDriftError } = drift;

const LOOKUP = /(\w+)=Object\.keys\((\w+)\.exports\)\.indexOf\((\w+)\)/g;
const MARK = '__exportIndex';
const PATCH = 'pglite-dlsym';

/** The lookup by a kept Map of `lib`'s export names (made again if `lib.exports` is replaced). */
function indexed(_all, index, lib, name) {
  const map = `(${lib}.${MARK}?.of===${lib}.exports?${lib}.${MARK}:(${lib}.${MARK}={of:${lib}.exports,at:new Map(Object.keys(${lib}.exports).map((k,i)=>[k,i]))}))`;
  return `${index}=(${map}.at.get(${name})??Object.keys(${lib}.exports).indexOf(${name}))`;
}

/** PGlite's bundles in `dist` (its `.js` and `.cjs` files): those still holding the lookup, and those patched. */
export function lookupFiles(dist) {
  const unpatched = [];
  const patched = [];
  for (const file of readdirSync(dist)) {
    if (!/\.(c?js)$/.test(file)) continue;
    const text = readFileSync(join(dist, file), 'utf8');
    if (text.includes(MARK)) patched.push(file);
    else if (new RegExp(LOOKUP.source).test(text)) unpatched.push(file);
  }
  return { unpatched, patched };
}

/** Patches PGlite's bundles in `dist`; returns the files patched now and those already patched. */
export function patchDist(dist) {
  const patched = [];
  const already = [];
  for (const file of readdirSync(dist)) {
    if (!/\.(c?js)$/.test(file)) continue;
    const path = join(dist, file);
    const text = readFileSync(path, 'utf8');
    if (text.includes(MARK)) {
      already.push(file);
      continue;
    }
    const next = text.replace(LOOKUP, indexed);
    if (next === text) continue;
    writeFileSync(path, next);
    patched.push(file);
  }
  return { patched, already };
}

/** The folder of the installed PGlite's bundles. */
export function pgliteDist() {
  return dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
}

/**
 * Patches the installed PGlite (`npm ci`'s postinstall); throws a PatchDriftError when no bundle holds the
 * lookup, patched or not, and returns the files patched now.
 */
export function applyDlsymPatch(dist = pgliteDist()) {
  const { patched, already } = patchDist(dist);
  if (patched.length + already.length === 0)
    throw new PatchDriftError(PATCH, `no bundle in ${dist} holds \`Object.keys(lib.exports).indexOf(name)\``);
  return patched;
}

/** Throws a PatchDriftError unless PGlite's bundles in `dist` hold the patched lookup and no unpatched one. */
export function checkDlsymPatch(dist = pgliteDist()) {
  const { unpatched, patched } = lookupFiles(dist);
  if (patched.length === 0 || unpatched.length > 0)
    throw new PatchDriftError(
      PATCH,
      unpatched.length
        ? `${unpatched.join(', ')} in ${dist} still list every export on each lookup`
        : `no bundle in ${dist} holds the indexed lookup`,
    );
  return patched;
}
