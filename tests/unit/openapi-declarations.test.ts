import { beforeAll, describe, expect, it } from 'vitest';
import { declaredProperties, openApiDocument, openApiPath } from '#lib/http/openapi/document.ts';
import { apiEndpoints, type DeclaredRoute, declaredRoutes } from '../fixtures/declarations.ts';

type Operation = {
  parameters?: { name: string; in: string; schema: object }[];
  requestBody?: { content: Record<string, { schema: object }> };
};

let routes: DeclaredRoute[];
let doc: { paths: Record<string, Record<string, Operation>> };

beforeAll(async () => {
  routes = await declaredRoutes();
  doc = openApiDocument(routes, { title: 't', version: '1' }) as typeof doc;
}, 120_000);

/** The methods a route's operations are listed under. */
const methodsOf = (r: DeclaredRoute) =>
  r.method === 'any' ? ['get', 'post', 'put', 'patch', 'delete'] : [r.method];

describe('the OpenAPI document lists every declared input (lib/http/openapi/document.ts)', () => {
  it('every declared body is a requestBody, as JSON and as a form', () => {
    let bodies = 0;
    for (const r of apiEndpoints(routes)) {
      const body = r.options!.schema?.body as object | undefined;
      for (const m of methodsOf(r).filter((m) => m !== 'get')) {
        const op = doc.paths[openApiPath(r.path)][m];
        if (!body) continue;
        bodies++;
        expect(op.requestBody?.content['application/json']?.schema, `${m} ${r.path}`).toEqual(body);
        expect(
          op.requestBody?.content['application/x-www-form-urlencoded']?.schema,
          `${m} ${r.path}`,
        ).toEqual(body);
      }
    }
    expect(bodies).toBeGreaterThan(0);
  });

  it('the raw bodies of recreate, append (GeoJSON) and datasets/upload (CSV) are declared, so clients can send them', () => {
    const body = (path: string) =>
      doc.paths[path].post.requestBody as {
        required?: boolean;
        content: Record<string, { schema: { type?: string; required?: string[]; oneOf?: object[] } }>;
      };
    const recreate = body('/api/geodatasets/recreate');
    expect(recreate.required).toBe(true);
    expect(recreate.content['application/json'].schema.required).toEqual(['name', 'geojson']);
    for (const path of ['/api/geodatasets/append/{name}', '/api/geodatasets/recreate/{name}']) {
      const b = body(path);
      expect(Object.keys(b.content), path).toEqual(['application/json', 'application/geo+json']);
      expect(b.content['application/json'].schema.oneOf, path).toHaveLength(2);
    }
    expect(body('/api/datasets/upload').content).toEqual({ 'text/csv': { schema: { type: 'string' } } });
  });

  it('every declared query and path property is a parameter', () => {
    let count = 0;
    for (const r of apiEndpoints(routes)) {
      for (const m of methodsOf(r)) {
        const op = doc.paths[openApiPath(r.path)][m];
        for (const part of ['query', 'path'] as const) {
          const schema = r.options!.schema?.[part] as object | undefined;
          for (const [name, p] of declaredProperties(schema)) {
            // A declared path property that is not a segment of this route (a route without it) is not a parameter.
            if (part === 'path' && !openApiPath(r.path).includes(`{${name}}`)) continue;
            count++;
            const param = op.parameters?.find((x) => x.name === name && x.in === part);
            expect(param, `${m} ${r.path} ${part} ${name}`).toBeDefined();
            expect(param!.schema).toEqual(p.schema);
          }
        }
      }
    }
    expect(count).toBeGreaterThan(0);
  });
});

describe('declaredProperties reads the branches of a declaration', () => {
  it('lists properties of allOf/anyOf/oneOf/then/else; required only where the schema itself requires it', () => {
    const route = {
      functionName: 'f',
      method: 'post',
      path: '/api/x/{id}',
      module: {
        handler: {
          endpoint: {
            auth: 'public',
            schema: {
              query: {
                type: 'object',
                required: ['a'],
                properties: { a: { type: 'string' } },
                anyOf: [{ properties: { b: { type: 'integer' } }, required: ['b'] }],
                if: { properties: { a: { const: 'x' } } },
                else: { properties: { c: { type: 'boolean' } } },
              },
              body: { type: 'object', properties: { d: { type: 'string' } } },
            },
          },
        },
      },
    };
    const op = (openApiDocument([route], { title: 't', version: '1' }) as typeof doc).paths['/api/x/{id}']
      .post;
    expect(op.parameters).toEqual([
      { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
      { name: 'a', in: 'query', required: true, schema: { type: 'string' } },
      { name: 'b', in: 'query', required: false, schema: { type: 'integer' } },
      { name: 'c', in: 'query', required: false, schema: { type: 'boolean' } },
    ]);
    expect(Object.keys(op.requestBody!.content)).toEqual([
      'application/json',
      'application/x-www-form-urlencoded',
    ]);
  });
});
