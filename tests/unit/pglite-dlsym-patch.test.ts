import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { patchDist } from '../../local/patches/pgliteDlsym.mjs';

// The lookup as PGlite's minified bundle has it (local/patches/pgliteDlsym.mjs).
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

  it('is applied to the installed PGlite (npm ci runs it)', () => {
    const dist = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
    const bundle = readFileSync(join(dist, 'index.js'), 'utf8');
    expect(bundle).toContain('__exportIndex');
    expect(bundle).not.toMatch(/\w+=Object\.keys\(\w+\.exports\)\.indexOf\(\w+\)[,;]/);
  });
});
