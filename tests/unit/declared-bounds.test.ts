import { beforeAll, describe, expect, it } from 'vitest';
import { apiEndpoints, type DeclaredRoute, declaredRoutes } from '../fixtures/declarations.ts';

/**
 * Every declared input is bounded (docs/input.md): each string has `maxLength` (or is an `enum`/`const`,
 * or a bounded `format`), each array `maxItems`, each number `minimum` and `maximum`; every endpoint that
 * takes a body (not `body: 'raw'`) declares its fields. It prints the offenders; `STRICT` makes it fail on
 * any not listed in `EXCEPTIONS`.
 */
const STRICT = true;
/** Offenders allowed on purpose, each `<method> <path> <part>.<field>: <rule>`, with the reason above it. */
const EXCEPTIONS: string[] = [
  // reads no body (MMGIS's client posts an empty one): a body declaration would require one
  'POST /api/users/logout body: not declared',
  // reads no body (MMGIS's client posts an empty one): a body declaration would require one
  'POST /api/files/getfiles body: not declared',
  // reads no body (MMGIS's client posts an empty one): a body declaration would require one
  'POST /api/files/publish body: not declared',
  // reads no body (MMGIS's client posts an empty one): a body declaration would require one
  'POST /api/files/orphans body: not declared',
  // reads no body (MMGIS's client posts an empty one): a body declaration would require one
  'POST /api/webhooks/config body: not declared',
  // a CQL2 JSON expression: its text is bounded (maxLength) and the CQL2 parser checks its shape (lib/cql2)
  'GET /api/geodatasets/get query.filter: free-form object (fields not declared)',
  // a CQL2 JSON expression: its text is bounded (maxLength) and the CQL2 parser checks its shape (lib/cql2)
  'GET /api/geodatasets/get body.filter: free-form object (fields not declared)',
  // a CQL2 JSON expression: its text is bounded (maxLength) and the CQL2 parser checks its shape (lib/cql2)
  'GET /api/geodatasets/get/{layer} query.filter: free-form object (fields not declared)',
  // a CQL2 JSON expression: its text is bounded (maxLength) and the CQL2 parser checks its shape (lib/cql2)
  'GET /api/geodatasets/get/{layer} body.filter: free-form object (fields not declared)',
  // a CQL2 JSON expression: its text is bounded (maxLength) and the CQL2 parser checks its shape (lib/cql2)
  'POST /api/geodatasets/get query.filter: free-form object (fields not declared)',
  // a CQL2 JSON expression: its text is bounded (maxLength) and the CQL2 parser checks its shape (lib/cql2)
  'POST /api/geodatasets/get body.filter: free-form object (fields not declared)',
  // a GeoJSON geometry or Feature, shape checked by parseIntersectGeometry (lib/geodatasets/read/intersect.ts)
  'POST /api/geodatasets/intersect body.intersect: free-form object (fields not declared)',
  // a GeoJSON geometry, shape checked by validGeometry (lib/draw/geometry.ts); its text is bounded
  'POST /api/draw/add body.geometry: free-form object (fields not declared)',
  // a GeoJSON geometry, shape checked by validGeometry (lib/draw/geometry.ts); its text is bounded
  'POST /api/draw/edit body.geometry: free-form object (fields not declared)',
  // a GeoJSON geometry, shape checked by validGeometry (lib/draw/geometry.ts); its text is bounded
  'POST /api/draw/split body.split: free-form object (fields not declared)',
  // a GeoJSON Feature, each checked by lib/draw/files.ts; at most 100,000 of them in a 6 MiB text
  'POST /api/files/make body.geojson.features[]: free-form object (fields not declared)',
  // a file's template is the user's own JSON (docs/draw.md): bounded by its text length and the nesting guard
  'POST /api/files/make body.template: free-form object (fields not declared)',
  // a file's template is the user's own JSON (docs/draw.md): bounded by its text length and the nesting guard
  'POST /api/files/change body.template: free-form object (fields not declared)',
  // a cell may hold any JSON value (MMGIS's form): bounded by the row's size limits and the nesting guard
  'POST /api/datasets/recreate body.csv[].*: free-form object (fields not declared)',
];

const BOUNDED_FORMATS = new Set(['uuid', 'date-time', 'date', 'time', 'email', 'ipv4', 'ipv6']);

type S = Record<string, any>;

/** The offences of one schema and its subschemas, each `<field path>: <rule missing>`. */
function unbounded(schema: unknown, at: string): string[] {
  const out: string[] = [];
  const todo: [unknown, string][] = [[schema, at]];
  while (todo.length) {
    const [s, path] = todo.pop() as [S, string];
    if (!s || typeof s !== 'object') continue;
    const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
    const closed = s.enum !== undefined || s.const !== undefined;
    if (!closed && types.includes('string') && s.maxLength === undefined && !BOUNDED_FORMATS.has(s.format))
      out.push(`${path}: string without maxLength`);
    if (types.includes('array') && s.maxItems === undefined) out.push(`${path}: array without maxItems`);
    if (!closed && (types.includes('number') || types.includes('integer'))) {
      if (s.minimum === undefined && s.exclusiveMinimum === undefined)
        out.push(`${path}: number without minimum`);
      if (s.maximum === undefined && s.exclusiveMaximum === undefined)
        out.push(`${path}: number without maximum`);
    }
    if (
      types.includes('object') &&
      !s.properties &&
      !s.patternProperties &&
      s.additionalProperties === undefined
    )
      out.push(`${path}: free-form object (fields not declared)`);
    for (const [k, p] of Object.entries(s.properties ?? {})) todo.push([p, `${path}.${k}`]);
    if (s.items) todo.push([s.items, `${path}[]`]);
    if (s.additionalProperties && typeof s.additionalProperties === 'object')
      todo.push([s.additionalProperties, `${path}.*`]);
    for (const k of ['allOf', 'anyOf', 'oneOf', 'prefixItems'])
      for (const b of s[k] ?? []) todo.push([b, path]);
    for (const k of ['then', 'else']) if (s[k]) todo.push([s[k], path]);
  }
  return out;
}

let routes: DeclaredRoute[];
beforeAll(async () => {
  routes = await declaredRoutes();
}, 120_000);

describe('declared inputs are bounded', () => {
  it('reports every unbounded string, array and number, and every body not declared', () => {
    const offenders: string[] = [];
    let inputs = 0;
    for (const r of apiEndpoints(routes)) {
      const name = `${r.method.toUpperCase()} ${r.path}`;
      const schema = (r.options!.schema ?? {}) as Record<string, object | undefined>;
      for (const part of ['query', 'path', 'body'] as const) {
        if (!schema[part]) continue;
        inputs++;
        for (const o of unbounded(schema[part], part)) offenders.push(`${name} ${o}`);
      }
      if (r.method !== 'get' && r.method !== 'delete' && !schema.body && r.options!.body !== 'raw')
        offenders.push(`${name} body: not declared`);
    }
    expect(inputs).toBeGreaterThan(20);
    const unexpected = offenders.filter((o) => !EXCEPTIONS.includes(o));
    console.log(
      `declared-bounds: ${apiEndpoints(routes).length} routes, ${inputs} declared parts, ` +
        `${unexpected.length} offenders${unexpected.length ? `:\n  ${unexpected.join('\n  ')}` : ''}`,
    );
    if (STRICT) expect(unexpected).toEqual([]);
    // An exception no longer needed is taken off the list.
    if (STRICT) expect(EXCEPTIONS.filter((e) => !offenders.includes(e))).toEqual([]);
  });

  it('the walker finds what it should (so the report above can be trusted)', () => {
    expect(
      unbounded(
        {
          type: 'object',
          properties: {
            s: { type: 'string' },
            e: { type: 'string', enum: ['a'] },
            a: { type: 'array', items: { type: 'integer', minimum: 0 } },
            ok: { type: 'string', maxLength: 3 },
          },
        },
        'body',
      ).sort(),
    ).toEqual([
      'body.a: array without maxItems',
      'body.a[]: number without maximum',
      'body.s: string without maxLength',
    ]);
  });
});
