import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { filterTar, unneeded } from '../../local/embedded/postgisBundle.mjs';

const require = createRequire(import.meta.url);

/** The names in a tar archive. */
function names(tar: Buffer): string[] {
  const out: string[] = [];
  for (let at = 0; at + 512 <= tar.length; ) {
    const h = tar.subarray(at, at + 512);
    if (h.every((b) => b === 0)) break;
    const name = h.toString('latin1', 0, 100).replace(/\0.*$/s, '');
    const size = Number.parseInt(h.toString('latin1', 124, 136).replace(/\0.*$/s, '').trim() || '0', 8);
    out.push(name);
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return out;
}

describe("the embedded database's trimmed PostGIS bundle (local/embedded/postgisBundle.mjs)", () => {
  const bundle = join(dirname(require.resolve('@electric-sql/pglite-postgis')), 'postgis.tar.gz');
  const original = gunzipSync(readFileSync(bundle));

  it('keeps postgis-3.so, the install script, the control file and PROJ data; drops the rest', () => {
    const kept = names(filterTar(original, (n) => !unneeded(n)));
    expect(kept).toContain('lib/postgresql/postgis-3.so');
    expect(kept.some((n) => /share\/postgresql\/extension\/postgis\.control$/.test(n))).toBe(true);
    expect(kept.some((n) => /share\/postgresql\/extension\/postgis--\d+\.\d+\.\d+\.sql$/.test(n))).toBe(true);
    expect(kept).toContain('share/proj/proj.db');
    expect(kept.filter((n) => n.endsWith('.so'))).toEqual(['lib/postgresql/postgis-3.so']);
    expect(kept.some((n) => /raster|topology|--ANY|unpackaged/.test(n))).toBe(false);
    expect(kept.length).toBeLessThan(names(original).length);
  });

  it('copies every kept entry byte for byte', () => {
    const all = filterTar(original, () => true);
    expect(names(all)).toEqual(names(original));
    expect(all.subarray(0, all.length - 1024).equals(original.subarray(0, all.length - 1024))).toBe(true);
  });
});
