// Run by `npm ci`/`npm install` (package.json postinstall), after patch-package.
//
// PGlite's dlsym (Emscripten's `__dlsym_js`) finds a symbol's index with `Object.keys(lib.exports).indexOf(name)`:
// it lists every export of the library on each lookup. PostGIS's library exports thousands of symbols, and
// PostgreSQL looks up two symbols per C function it defines or first calls, so `create extension postgis`
// (599 C functions) spent about 7 of its 9 s listing exports (docs/connections.md, "The embedded database's
// first start"). The patch keeps each library's export names in a Map, made on its first lookup; a name added
// later is still found by the original listing. The files are minified (one line of about 300 KB), so the
// patch is this exact replacement rather than a patch-package diff; a PGlite that no longer has the
// expression is left as it is, with a warning.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const LOOKUP = /(\w+)=Object\.keys\((\w+)\.exports\)\.indexOf\((\w+)\)/g;
const MARK = '__exportIndex';

/** The lookup by a kept Map of `lib`'s export names (made again if `lib.exports` is replaced). */
function indexed(_all, index, lib, name) {
  const map = `(${lib}.${MARK}?.of===${lib}.exports?${lib}.${MARK}:(${lib}.${MARK}={of:${lib}.exports,at:new Map(Object.keys(${lib}.exports).map((k,i)=>[k,i]))}))`;
  return `${index}=(${map}.at.get(${name})??Object.keys(${lib}.exports).indexOf(${name}))`;
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

function pgliteDist() {
  try {
    return dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  } catch {
    return null;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const dist = pgliteDist();
  if (dist) {
    const { patched, already } = patchDist(dist);
    if (patched.length + already.length === 0) {
      console.warn("patchPgliteDlsym: PGlite's dlsym lookup was not found; left as it is");
    } else if (patched.length > 0) {
      console.log(`patchPgliteDlsym: PGlite's dlsym indexed in ${patched.join(', ')}`);
    }
  }
}
