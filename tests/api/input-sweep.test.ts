import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MAX_INPUT_DEPTH } from '#lib/http/inputGuards.ts';
import { declaredProperties } from '#lib/http/openapi/document.ts';
import { compileSchemas } from '#lib/http/validation.ts';
import { apiEndpoints, type DeclaredRoute, declaredRoutes, sample } from '../fixtures/declarations.ts';
import { apiUrlLocal, login } from '../helpers.ts';

/**
 * The bad-input sweep, derived from the declarations (docs/input.md): for every endpoint and every input it
 * declares (query, path and top-level body fields), values past the declared bounds and past the generic
 * guards: a string one past `maxLength`, an array one past `maxItems`, duplicates where `uniqueItems`,
 * a number past `minimum`/`maximum`, 1e308, 2^63, -0, `NaN` text, the wrong type, a NUL, a `__proto__`
 * key, nesting past the limit. Each is sent with an otherwise valid request (built from the declaration)
 * as the administrator, so authentication does not answer first. What the declaration refuses must be a
 * 4xx whose message names the field; nothing may be a 5xx; no table may change. Values the declaration
 * accepts (a missing bound) are sent only to GET endpoints (they change nothing) and must not be a 5xx.
 */

type S = Record<string, any>;
type Part = 'query' | 'path' | 'body';
interface Case {
  part: Part;
  field: string;
  label: string;
  /** The value, or a function of the baseline part giving the whole part (JSON text for bodies). */
  value: unknown;
  /** JSON text of the whole body, when the value cannot be built as an object (`__proto__`, 2^63). */
  bodyText?: (baseline: Record<string, unknown>) => string;
  /** The guard refuses it whatever the declaration says. */
  guarded?: boolean;
}

/** The baseline body as JSON text with `field` set to the JSON text `raw` (what JSON.stringify cannot write). */
function bodyWith(b: Record<string, unknown>, field: string, raw: string): string {
  const { [field]: _, ...rest } = b;
  return JSON.stringify({ ...rest, [field]: '\u0001' }).replace('"\\u0001"', raw);
}

const typesOf = (s: S): string[] => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);
const deep = (n: number): unknown => JSON.parse(`${'['.repeat(n)}${']'.repeat(n)}`);

/** The bad values for one declared input. */
function casesFor(part: Part, field: string, s: S): Case[] {
  const out: Case[] = [];
  const types = typesOf(s);
  const wire = part !== 'body'; // query and path values are text, coerced by the declaration
  const add = (label: string, value: unknown, extra: Partial<Case> = {}) =>
    out.push({ part, field, label, value, ...extra });
  add('NUL', `a\u0000b`, { guarded: true });
  if (types.includes('string') || !types.length) {
    if (s.maxLength !== undefined) add(`maxLength+1 (${s.maxLength + 1})`, 'a'.repeat(s.maxLength + 1));
    if (!wire && !types.includes('number') && !types.includes('integer')) add('wrong type (number)', 12345);
  }
  if (types.includes('number') || types.includes('integer')) {
    for (const [label, v] of [
      ['1e308', wire ? '1e308' : 1e308],
      ['-0', wire ? '-0' : -0],
      ['NaN text', 'NaN'],
      ['1.5', wire ? '1.5' : 1.5],
    ] as const)
      add(label, v);
    add('2^63', wire ? '9223372036854775808' : 2 ** 63, {
      bodyText: wire ? undefined : (b) => bodyWith(b, field, '9223372036854775808'),
    });
    if (s.minimum !== undefined) add('minimum-1', wire ? String(s.minimum - 1) : s.minimum - 1);
    if (s.maximum !== undefined) add('maximum+1', wire ? String(s.maximum + 1) : s.maximum + 1);
  }
  if (types.includes('boolean') && !types.includes('string')) add('wrong type (text)', 'maybe');
  if (types.includes('array')) {
    const item = sample(s.items);
    if (s.maxItems !== undefined)
      add(
        `maxItems+1 (${s.maxItems + 1})`,
        Array.from({ length: s.maxItems + 1 }, (_, i) => (s.uniqueItems ? i : item)),
      );
    if (s.uniqueItems) add('duplicates', [item, item]);
    if (!wire && !types.includes('string')) add('wrong type (object)', { a: 1 });
  }
  if (!wire) {
    add(`nested ${MAX_INPUT_DEPTH + 8} deep`, deep(MAX_INPUT_DEPTH + 8), { guarded: true });
    add('__proto__ key', null, {
      guarded: true,
      bodyText: (b) => bodyWith(b, field, '{"__proto__":{"polluted":1}}'),
    });
    if (types.includes('object') && !types.includes('array')) add('wrong type (text)', 'x');
  }
  return out;
}

const db = postgres(inject('databaseUrl'), { max: 1, onnotice: () => {} });
/** Tables that change by merely being called as a logged-in caller (sessions, token use, sockets). */
const VOLATILE = new Set(['sessions', 'api_tokens', 'login_failures', 'ws_connections', 'ws_subscriptions']);
/**
 * Tables whose rows background work updates while the sweep runs (a job of an earlier test file beating
 * its heartbeat, the reaper, the stats schedule): a refused request must add no row, so their row count
 * is compared, not their content.
 */
const COUNTED_ONLY = new Set(['jobs']);

/** Row count and a hash of every row of every table (the suite's database is small). */
async function fingerprint(): Promise<Record<string, string>> {
  const tables = await db<{ schema: string; name: string }[]>`
    select table_schema as schema, table_name as name from information_schema.tables
    where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema', 'tiger', 'topology')
      and table_name <> 'spatial_ref_sys'`;
  const out: Record<string, string> = {};
  for (const t of tables) {
    if (VOLATILE.has(t.name)) continue;
    const [row] = COUNTED_ONLY.has(t.name)
      ? await db`select count(*)::text as f from ${db(t.schema)}.${db(t.name)}`
      : await db`
      select count(*)::text || ':' || coalesce(sum(hashtext(x::text)::bigint), 0)::text as f
      from ${db(t.schema)}.${db(t.name)} x`;
    out[`${t.schema}.${t.name}`] = row.f;
  }
  return out;
}

let routes: DeclaredRoute[];
let cookie: string;
const base = () => apiUrlLocal();

beforeAll(async () => {
  routes = apiEndpoints(await declaredRoutes());
  cookie = await login(inject('admin').username, inject('admin').password, base());
}, 120_000);
afterAll(() => db.end());

interface Sent {
  status: number;
  message: string;
  /** Refused before the service saw it: a request line past the HTTP server's 16 KB header limit, or a body
   * past the body limit (413). Neither can name the field: the value never reaches the validator. */
  beforeService: boolean;
}

/** Requests of the sweep in flight at once. */
const CONCURRENT = 6;

/** Node's (and the gateway's order of) limit on the request line and headers: a longer URL never arrives. */
const MAX_REQUEST_LINE = 16 * 1024;

async function send(method: string, path: string, query: URLSearchParams, body?: string): Promise<Sent> {
  const qs = query.toString();
  const url = `${base()}${path}${qs ? `?${qs}` : ''}`;
  const res = await fetch(url, {
    method: method.toUpperCase(),
    headers: {
      cookie,
      origin: new URL(base()).origin,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body,
    redirect: 'manual',
  });
  const text = await res.text();
  let message = '';
  try {
    message = String(JSON.parse(text)?.message ?? '');
  } catch {
    message = text.slice(0, 200);
  }
  const beforeService = res.status === 413 || (res.status < 500 && url.length > MAX_REQUEST_LINE);
  return { status: res.status, message, beforeService };
}

describe('bad-input sweep over every declared input', () => {
  it('refuses past-the-bound values with a 4xx naming the field, never a 5xx, and changes nothing', async () => {
    const failures: string[] = [];
    let endpoints = 0;
    let inputs = 0;
    let cases = 0;
    let fiveXX = 0;
    let acceptedByDeclaration = 0;
    let unbuilt = 0;
    const jobs: (() => Promise<void>)[] = [];
    for (const route of routes) {
      const method = route.method === 'any' ? 'post' : route.method;
      const schema = (route.options!.schema ?? {}) as Partial<Record<Part, S>>;
      const compiled = compileSchemas(schema);
      const props = {
        query: declaredProperties(schema.query),
        path: declaredProperties(schema.path),
        body: method === 'get' ? new Map() : declaredProperties(schema.body),
      };
      const segments = [...route.path.matchAll(/\{(\w+)\+?\}/g)].map((m) => m[1]);
      // An otherwise valid request: every required field (and every path segment) from the declaration.
      const baseline: Record<Part, Record<string, unknown>> = { query: {}, path: {}, body: {} };
      for (const part of ['query', 'body'] as const)
        for (const [name, p] of props[part]) if (p.required) baseline[part][name] = sample(p.schema as S);
      for (const name of segments) baseline.path[name] = sample(props.path.get(name)?.schema as S);
      const valid = (part: Part, value: unknown) => {
        const v = part === 'body' ? compiled.body : compiled[part];
        return !v || v(structuredClone(value));
      };
      const built = (['query', 'path', 'body'] as const).every((p) => valid(p, baseline[p]));
      if (!built) unbuilt++;
      const request = (parts: Record<Part, Record<string, unknown>>, bodyText?: string) => {
        let path = route.path;
        for (const name of segments)
          path = path.replace(new RegExp(`\\{${name}\\+?\\}`), encodeURIComponent(String(parts.path[name])));
        const q = new URLSearchParams();
        for (const [k, v] of Object.entries(parts.query))
          for (const one of Array.isArray(v) ? v : [v])
            q.append(k, typeof one === 'string' ? one : JSON.stringify(one));
        const body = method === 'get' ? undefined : (bodyText ?? JSON.stringify(parts.body));
        return send(method, path, q, body);
      };
      const all: Case[] = [];
      for (const part of ['query', 'path', 'body'] as const)
        for (const [name, p] of props[part]) {
          if (part === 'path' && !segments.includes(name)) continue;
          inputs++;
          all.push(...casesFor(part, name, p.schema as S));
        }
      // Per endpoint: a reserved key and a NUL in an undeclared query parameter (the guard sees every parameter).
      all.push({ part: 'query', field: '__proto__', label: 'reserved query key', value: '1', guarded: true });
      all.push({
        part: 'query',
        field: 'undeclared_x',
        label: 'NUL in an undeclared parameter',
        value: '\u0000',
        guarded: true,
      });
      endpoints++;
      for (const c of all) {
        const parts = structuredClone(baseline);
        // defineProperty: `__proto__` must be a field, not the prototype.
        if (c.value !== null || !c.bodyText)
          Object.defineProperty(parts[c.part], c.field, {
            value: c.value,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        const refused = c.guarded || !valid(c.part, parts[c.part]);
        if (!refused) acceptedByDeclaration++;
        if (!refused && method !== 'get') continue;
        cases++;
        jobs.push(async () => {
          const res = await request(
            parts,
            c.bodyText && c.part === 'body' ? c.bodyText(baseline.body) : undefined,
          );
          const where = `${method.toUpperCase()} ${route.path} ${c.part} '${c.field}' ${c.label}: ${res.status} ${res.message}`;
          if (res.status >= 500) {
            fiveXX++;
            failures.push(where);
          } else if (refused && (res.status < 400 || res.status > 499))
            failures.push(`${where} (expected a 4xx)`);
          else if (refused && (built || c.guarded) && !res.beforeService && !res.message.includes(c.field))
            failures.push(`${where} (the message does not name '${c.field}')`);
        });
      }
    }
    // Every case is a refusal or a read: they run CONCURRENT at a time, and the tables are compared once,
    // before and after the whole sweep.
    const before = await fingerprint();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENT }, async () => {
        while (next < jobs.length) await jobs[next++]();
      }),
    );
    const after = await fingerprint();
    expect(after, 'no table changed').toEqual(before);
    console.log(
      `input sweep: ${endpoints} endpoints, ${inputs} declared inputs, ${cases} cases sent, ${fiveXX} 5xx, ` +
        `${acceptedByDeclaration} values the declarations accept (missing bounds; sent to GET only), ` +
        `${unbuilt} endpoints without a valid baseline request`,
    );
    expect(endpoints).toBeGreaterThan(40);
    expect(cases).toBeGreaterThan(endpoints * 2);
    expect(failures).toEqual([]);
  }, 600_000);
});
