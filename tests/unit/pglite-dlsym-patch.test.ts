import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  applyDlsymPatch,
  checkDlsymPatch,
  lookupFiles,
  patchDist,
  pgliteDist,
} from '../../local/patches/pgliteDlsym.mjs';

// The lookup as PGlite's minified bundles have it (local/patches/pgliteDlsym.mjs).
const ORIGINAL = 'export function find(s,t){var o;o=Object.keys(s.exports).indexOf(t);return o}';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function patchedFind(): Promise<(lib: { exports: object }, name: string) => number> {
  const dir = mkdtempSync(join(tmpdir(), 'dlsym-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'index.js'), ORIGINAL);
  writeFileSync(join(dir, 'README.md'), 'not a bundle');
  expect(patchDist(dir)).toEqual({ patched: ['index.js'], already: [] });
  expect(patchDist(dir)).toEqual({ patched: [], already: ['index.js'] });
  const mod = await import(join(dir, 'index.js'));
  return mod.find;
}

describe("PGlite's dlsym lookup, indexed at install (local/patches/pgliteDlsym.mjs)", () => {
  it('answers what the original listing answers, for names present, added later, missing, and replaced exports', async () => {
    const find = await patchedFind();
    const exports: Record<string, number> = { a: 1, b: 2, c: 3 };
    const lib = { exports };
    expect(find(lib, 'b')).toBe(1);
    expect(find(lib, 'c')).toBe(2);
    expect(find(lib, 'zzz')).toBe(-1);
    exports.d = 4;
    expect(find(lib, 'd')).toBe(3);
    lib.exports = { x: 1, b: 2 };
    expect(find(lib, 'b')).toBe(1);
    expect(find(lib, 'c')).toBe(-1);
  });

  it('is applied to the installed PGlite (npm ci runs it), in whichever of its bundles holds the lookup', () => {
    // Found by its text, as the patch finds it: PGlite 0.5.17 moved it from index.js into a chunk.
    const { patched, unpatched } = lookupFiles(pgliteDist());
    expect(unpatched).toEqual([]);
    expect(patched.length).toBeGreaterThan(0);
    expect(checkDlsymPatch()).toEqual(patched);
  });

  it('fails loudly on a PGlite whose bundles no longer hold the lookup, patched or not', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dlsym-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'chunk-X.js'), 'export function find(s,t){return s.exports[t]}');
    expect(() => applyDlsymPatch(dir)).toThrow(/local patch "pglite-dlsym": no bundle/);
    expect(() => checkDlsymPatch(dir)).toThrow(/no bundle .* holds the indexed lookup/);
    writeFileSync(join(dir, 'chunk-Y.js'), ORIGINAL);
    expect(() => checkDlsymPatch(dir)).toThrow(/chunk-Y\.js .* still list every export/);
  });
});
