import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { openApiPath } from '#lib/http/openapi/document.ts';
import { readRoutes } from '../../scripts/apiRoutes.mjs';
import { assertConforms } from '../fixtures/openapiConformance.ts';
import { adminToken, apiUrl, call, uniqueName } from '../helpers.ts';

interface Operation {
  operationId: string;
  'x-auth'?: string;
  responses: Record<string, { content?: Record<string, { schema: object }> }>;
}
type Doc = { openapi: string; paths: Record<string, Record<string, Operation>> };

const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
let doc: Doc;

/** Checks one real answer against the document: the operation of its route and method, by status. */
function conforms(method: string, route: string, res: { status: number; body: unknown }): void {
  const op = doc.paths[route]?.[method];
  expect(op, `${method} ${route} is in the document`).toBeDefined();
  const schema = op.responses[String(res.status)]?.content?.['application/json']?.schema;
  expect(schema, `${method} ${route} documents status ${res.status}`).toBeDefined();
  const validate = ajv.compile(schema!);
  expect(validate(res.body), JSON.stringify(validate.errors)).toBe(true);
}

beforeAll(async () => {
  const res = await call('GET', '/api/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
});

describe('GET /api/openapi.json', () => {
  it('is an OpenAPI 3.1 document with every http route of serverless.yml, each from its endpoint()', () => {
    expect(doc.openapi).toBe('3.1.0');
    const routes = readRoutes(process.cwd());
    expect(routes.length).toBeGreaterThan(40);
    for (const r of routes) {
      const item = doc.paths[openApiPath(r.path)];
      expect(item, r.path).toBeDefined();
      const methods = r.method === 'any' ? ['get', 'post', 'put', 'patch', 'delete'] : [r.method];
      for (const m of methods) {
        expect(item[m], `${m} ${r.path}`).toBeDefined();
        // The web pages (docs/web.md) are static files, not endpoint() handlers: no auth rule to carry.
        if (!r.path.startsWith('/api/')) continue;
        // x-auth comes from the handler's own options: the handler was imported, not guessed.
        expect(item[m]?.['x-auth'], `${m} ${r.path}`).toMatch(/^(public|viewer|user|admin)$/);
      }
    }
  });

  it('has a 3.0 rendering (version=3.0) with the same paths, for clients that read only 3.0', async () => {
    const res = await call('GET', '/api/openapi.json?version=3.0');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.0.3');
    expect(Object.keys(res.body.paths).sort()).toEqual(Object.keys(doc.paths).sort());
    const text = JSON.stringify(res.body);
    // 3.0 has no type lists, `const` or `jsonSchemaDialect` (nullable and enum instead).
    expect(text).not.toMatch(/"type":\[/);
    expect(text).not.toMatch(/"const":/);
    expect(res.body.jsonSchemaDialect).toBeUndefined();
    expect((await call('GET', '/api/openapi.json?version=2.0')).status).toBe(400);
  });

  it('carries the endpoints’ JSON Schemas as parameters and request bodies', () => {
    const get = doc.paths['/api/configure/get'].get as unknown as { parameters: object[] };
    expect(get.parameters).toContainEqual({
      name: 'mission',
      in: 'query',
      required: true,
      schema: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9 _-]+$' },
    });
    const login = doc.paths['/api/users/login'].post as unknown as { requestBody: { content: object } };
    const credentials = {
      schema: {
        type: 'object',
        properties: {
          username: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.@-]+$' },
          password: { type: 'string', minLength: 1, maxLength: 256 },
          useToken: { type: 'boolean' },
        },
        if: { required: ['useToken'], properties: { useToken: { type: 'boolean', const: true } } },
        else: { required: ['username', 'password'] },
      },
    };
    // JSON or a form, coerced to the same input (docs/contract.md, section 1).
    expect(login.requestBody.content).toEqual({
      'application/json': credentials,
      'application/x-www-form-urlencoded': credentials,
    });
  });

  it('describes real answers of the API', async () => {
    const mission = uniqueName('oa');
    const token = adminToken();
    const add = await call('POST', '/api/configure/add', { token, body: { mission } });
    expect(add.status).toBeLessThan(300);
    conforms('get', '/api/configure/missions', await call('GET', '/api/configure/missions'));
    conforms(
      'get',
      '/api/configure/versions',
      await call('GET', `/api/configure/versions?mission=${mission}`, { token }),
    );
    conforms('get', '/api/users/logged_in', await call('GET', '/api/users/logged_in'));
    conforms('post', '/api/geodatasets/entries', await call('POST', '/api/geodatasets/entries'));
    // Failures: 400 naming the field, 401, 404 of an unknown mission and of an unknown route.
    conforms('get', '/api/configure/get', await call('GET', '/api/configure/get'));
    conforms(
      'get',
      '/api/configure/versions',
      await call('GET', `/api/configure/versions?mission=${mission}`),
    );
    conforms(
      'get',
      '/api/configure/get',
      await call('GET', `/api/configure/get?mission=${uniqueName('none')}`),
    );
    conforms('get', '/api/{proxy}', await call('GET', '/api/no/such/route'));
  });

  it('declares the success shape of the main endpoints (their 2xx JSON schema is not empty)', () => {
    const main: [string, string][] = [
      ['get', '/api/configure/get'],
      ['post', '/api/configure/upsert'],
      ['post', '/api/configure/addLayer'],
      ['post', '/api/configure/validate'],
      ['get', '/api/geodatasets/get/{layer}'],
      ['post', '/api/geodatasets/search'],
      ['post', '/api/geodatasets/intersect'],
      ['get', '/api/geodatasets/aggregations'],
      ['post', '/api/geodatasets/entries'],
      ['post', '/api/geodatasets/recreate'],
      ['post', '/api/users/login'],
      ['get', '/api/users/list'],
      ['post', '/api/longtermtoken/generate'],
      ['post', '/api/draw/add'],
      ['post', '/api/files/getfiles'],
      ['post', '/api/datasets/get'],
      ['post', '/api/shortener/shorten'],
      ['post', '/api/utils/getbands'],
      ['get', '/api/utils/healthcheck'],
    ];
    for (const [method, path] of main) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      const ok = Object.entries(op.responses).filter(([status]) => status.startsWith('2'));
      // JSON, or a JSON text sent as text/plain (getbands/getprofile: the established server's answer)
      const schemas = ok.map(
        ([, r]) =>
          r.content?.['application/json']?.schema ??
          (r.content?.['text/plain']?.schema as { contentSchema?: object } | undefined)?.contentSchema,
      );
      expect(
        schemas.some((s) => s && Object.keys(s).length > 0),
        `${method} ${path} declares a 2xx JSON schema (or a text/plain one with its content schema)`,
      ).toBe(true);
    }
  });

  it('the test client refuses an answer the document does not describe', async () => {
    // Every call() checks its answer (tests/fixtures/openapiConformance.ts); here the checker is given
    // answers that are wrong on purpose, to show that it fails.
    const res = await call('GET', '/api/configure/missions');
    const answer = { status: res.status, contentType: 'application/json', text: res.text };
    await expect(
      assertConforms(apiUrl(), 'GET', '/api/configure/missions', { ...answer, body: { status: 'success' } }),
    ).rejects.toThrow(/must have required property 'missions'/);
    await expect(
      assertConforms(apiUrl(), 'GET', '/api/configure/missions', {
        ...answer,
        body: { status: 'success', missions: 'M' },
      }),
    ).rejects.toThrow(/must be array/);
    await expect(
      assertConforms(apiUrl(), 'GET', '/api/configure/missions', { ...answer, status: 418, body: res.body }),
    ).rejects.toThrow(/answered 418, not documented/);
  });
});
