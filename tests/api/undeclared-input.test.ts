import { beforeAll, describe, expect, inject, it } from 'vitest';
import { declaredProperties } from '#lib/http/openapi/document.ts';
import { apiEndpoints, type DeclaredRoute, declaredRoutes, sample } from '../fixtures/declarations.ts';
import { apiUrlLocal, login } from '../helpers.ts';

/**
 * Undeclared query parameters are ignored (docs/input.md): jQuery's `_=<timestamp>` cache-buster and any
 * other parameter an endpoint does not declare give the same answer as without them (or a 400, for an
 * endpoint that refuses unknown parameters), on every GET endpoint.
 */
let routes: DeclaredRoute[];
let cookie: string;

beforeAll(async () => {
  routes = apiEndpoints(await declaredRoutes()).filter((r) => r.method === 'get');
  cookie = await login(inject('admin').username, inject('admin').password, apiUrlLocal());
}, 120_000);

async function get(url: string): Promise<{ status: number; text: string }> {
  const res = await fetch(url, { headers: { cookie }, redirect: 'manual' });
  return { status: res.status, text: await res.text() };
}

describe('an undeclared query parameter changes nothing', () => {
  it('every GET endpoint answers the same with `_=<timestamp>&undeclared=1` as without', async () => {
    const differ: string[] = [];
    let compared = 0;
    for (const r of routes) {
      const schema = (r.options!.schema ?? {}) as Record<string, object | undefined>;
      let path = r.path;
      for (const [, name] of r.path.matchAll(/\{(\w+)\+?\}/g))
        path = path.replace(
          new RegExp(`\\{${name}\\+?\\}`),
          encodeURIComponent(String(sample(declaredProperties(schema.path).get(name)?.schema))),
        );
      const q = new URLSearchParams();
      for (const [name, p] of declaredProperties(schema.query))
        if (p.required) q.set(name, String(sample(p.schema as Record<string, unknown>)));
      const url = `${apiUrlLocal()}${path}?${q}`;
      const withExtra = () => get(`${url}${q.size ? '&' : ''}_=${Date.now()}&undeclared_zz=1`);
      const [a, b] = [await get(url), await get(url)];
      let extra = await withExtra();
      compared++;
      const where = () => `GET ${r.path}: ${a.status} → ${extra.status} ${extra.text.slice(0, 160)}`;
      if (extra.status >= 500) differ.push(where());
      else if (extra.status === 400) continue;
      else if (extra.status !== a.status) differ.push(where());
      // A body that differs between two plain calls (a clock, a fresh id) is compared by status only.
      else if (a.text === b.text && extra.text !== b.text) {
        // Other test files change the shared database meanwhile (a new token, a new geodataset): the
        // answer with the extra parameter must equal a plain answer next to it, in one of three tries.
        let same = false;
        for (let i = 0; i < 3 && !same; i++) {
          const before = await get(url);
          extra = await withExtra();
          const after = await get(url);
          same = extra.text === before.text || extra.text === after.text;
        }
        if (!same) differ.push(`${where()} (body differs)`);
      }
    }
    console.log(`undeclared-input: ${compared} GET endpoints compared`);
    expect(compared).toBeGreaterThan(10);
    expect(differ).toEqual([]);
  }, 300_000);
});
