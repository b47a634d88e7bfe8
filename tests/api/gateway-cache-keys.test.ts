import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { getDb } from '#lib/db/index.ts';
import { removeGeodataset } from '#lib/geodatasets/manage.ts';
import { recreateGeodataset } from '#lib/geodatasets/write/write.ts';
import {
  invokePackaged,
  type PackagedFunction,
  type ProxyAnswer,
  packagedFunctions,
  proxyEvent,
  type RouteRequest,
  runRoot,
} from '../fixtures/lambdaRun.ts';
import { DEFAULT_PACKAGE_ENV, packageService } from '../fixtures/packageService.ts';
import { points } from '../fixtures/uploads.ts';
import { uniqueName } from '../helpers.ts';

/**
 * The REST API stage cache answers a request from whatever it stored under the request's cache key
 * (serverless/plugins/gateway-cache.cjs; docs/tiles.md, "Caching"). A request header left out of the key
 * that changes the answer would let one caller's answer reach every other caller for the TTL (a link
 * naming a host the caller chose, an Origin echoed with credentials). So, behaviourally: each cached
 * method's packaged handler answers a set of requests on the test database, each again with one header a
 * client may send changed, and every header that changed the status, a header or the body must be among
 * that method's CacheKeyParameters. With the front door's PUBLIC_URL and without it (`frontDoor=false`).
 */

/** The stage cache on, as a production stage has it (both files share this one package). */
const PACKAGE_PARAMS = ['apiCache=true'];
const API_HOST = 'abc123.execute-api.us-east-1.amazonaws.com';
const BASE_HEADERS: Record<string, string> = {
  Host: API_HOST,
  'X-Forwarded-Proto': 'https',
  'X-Forwarded-For': '198.51.100.7',
  Accept: '*/*',
};

/** Headers a client may send, each with values that could change an answer. `ETAG`: the answer's own ETag. */
const ETAG = '<etag>';
// Not `Host`: API Gateway routes a regional API by its Host, so every request that reaches a stage
// carries that API's own host (or a custom domain the operator mapped to it); no client chooses it.
const VARIANTS: [string, string[]][] = [
  ['X-Forwarded-Host', ['evil.example']],
  ['X-Forwarded-Proto', ['http']],
  ['Forwarded', ['host=evil.example;proto=http']],
  ['Origin', ['https://app.allowed.test', 'https://d111111abcdef8.cloudfront.net', 'https://evil.example']],
  ['Accept', ['application/json', 'text/html', 'application/x-protobuf', 'image/avif,image/webp,*/*']],
  ['Accept-Encoding', ['gzip', 'br']],
  ['Accept-Language', ['fr']],
  ['Cookie', ['MMGISSession=0123456789abcdef0123456789abcdef', 'MMGISDevice=abc']],
  ['Authorization', ['Bearer mmgis_not_a_token', 'Basic Zm9vOmJhcg==']],
  ['If-None-Match', [ETAG, '"other"', '*']],
  ['If-Modified-Since', ['Wed, 21 Oct 2015 07:28:00 GMT']],
  ['X-Requested-With', ['XMLHttpRequest']],
  ['User-Agent', ['curl/8.0']],
  ['Referer', ['https://evil.example/page']],
  ['Range', ['bytes=0-10']],
];

const db = getDb();
const name = uniqueName('cache_keys');
const out = mkdtempSync(join(tmpdir(), 'sls-cache-keys-'));
let root: string;
let template: any;
let functions: PackagedFunction[];

beforeAll(async () => {
  await recreateGeodataset(db, { type: 'FeatureCollection', features: points(20) }, { name });
  root = runRoot();
  template = JSON.parse(await packageService(out, PACKAGE_PARAMS, DEFAULT_PACKAGE_ENV));
  functions = packagedFunctions(template, out);
}, 900_000);

afterAll(async () => {
  rmSync(out, { recursive: true, force: true });
  if (root) rmSync(root, { recursive: true, force: true });
  // The catalog row, its table and its rank levels (lib/geodatasets/manage.ts).
  await removeGeodataset(db, name).catch(() => {});
});

/** Full path of an AWS::ApiGateway::Resource, rebuilt from PathPart/ParentId. */
function pathOf(resources: Record<string, any>, id: string): string {
  const r = resources[id];
  const parent = r.Properties.ParentId;
  return `${parent?.Ref && resources[parent.Ref] ? pathOf(resources, parent.Ref) : ''}/${r.Properties.PathPart}`;
}

interface CachedMethod {
  resource: string;
  keys: string[];
  fn: PackagedFunction;
}

/** Every method of the template with a cache key, its route and its function. */
function cachedMethods(): CachedMethod[] {
  const resources = template.Resources as Record<string, any>;
  return Object.values(resources)
    .filter((r) => r.Type === 'AWS::ApiGateway::Method' && r.Properties.Integration?.CacheKeyParameters)
    .map((m) => {
      const fn = functions.find((f) => JSON.stringify(m).includes(`"${f.id}","Arn"`));
      if (!fn) throw new Error(`no function for ${JSON.stringify(m).slice(0, 200)}`);
      return {
        resource: pathOf(resources, m.Properties.ResourceId.Ref),
        keys: m.Properties.Integration.CacheKeyParameters,
        fn,
      };
    });
}

/** The requests each cached route answers: a success of each kind it serves, and a refusal. */
function requestsOf(resource: string): RouteRequest[] {
  const tile = { type: 'mvt', z: '0', x: '0', y: '0' };
  if (resource === '/api/geodatasets/get/{layer}') {
    const pathParameters = { layer: name };
    return [
      { resource, pathParameters, query: tile },
      { resource, pathParameters, query: { limit: '5', after: '0' } },
      { resource, pathParameters, query: { type: 'mvt', z: '0' } },
    ];
  }
  if (resource === '/api/geodatasets/get') {
    return [
      { resource, query: { layer: name, ...tile } },
      { resource, query: { layer: name, limit: '5', after: '0' } },
      { resource, query: { layer: 'no_such_layer_here', ...tile } },
    ];
  }
  if (resource.startsWith('/api/ogc/collections/{collectionId}/tiles/')) {
    const at = (tileMatrix: string) => ({
      collectionId: name,
      tileMatrixSetId: 'WebMercatorQuad',
      tileMatrix,
      tileRow: '0',
      tileCol: '0',
    });
    return [
      { resource, pathParameters: at('0') },
      { resource, pathParameters: at('0'), query: { f: 'mvt' } },
      { resource, pathParameters: at('99') },
    ];
  }
  throw new Error(`${resource} is cached: give it requests here`);
}

/** What a cache would store of an answer. */
const stored = (a: ProxyAnswer) =>
  JSON.stringify({
    error: a.error,
    statusCode: a.statusCode,
    headers: Object.entries(a.headers ?? {})
      .map(([k, v]) => [k.toLowerCase(), String(v)])
      .sort(),
    multiValueHeaders: Object.entries(a.multiValueHeaders ?? {})
      .map(([k, v]) => [k.toLowerCase(), v])
      .sort(),
    body: a.body,
    isBase64Encoded: a.isBase64Encoded,
  });

/**
 * The headers (names as sent) that change the answer of `method` to any of its requests under `env`, with
 * one example each; also checks that the same request answers the same twice (else nothing can be said).
 */
async function headersThatMatter(method: CachedMethod, env: Record<string, string>) {
  const requests = requestsOf(method.resource);
  const event = (r: RouteRequest, headers: Record<string, string> = {}) =>
    proxyEvent({ ...r, headers: { ...BASE_HEADERS, ...headers } });
  const baselines = await invokePackaged(
    method.fn,
    root,
    requests.flatMap((r) => [event(r), event(r)]),
    env,
  );
  const events: unknown[] = [];
  const labels: { request: number; header: string; value: string }[] = [];
  requests.forEach((r, i) => {
    const [first, second] = [baselines[2 * i], baselines[2 * i + 1]];
    expect(first.error, first.error).toBeUndefined();
    expect(
      stored(second),
      `${method.resource} ${JSON.stringify(r.query)}: the same request, another answer`,
    ).toBe(stored(first));
    for (const [header, values] of VARIANTS) {
      for (const raw of values) {
        const etag = Object.entries(first.headers ?? {}).find(([k]) => k.toLowerCase() === 'etag')?.[1];
        const value = raw === ETAG ? String(etag ?? '"none"') : raw;
        const headers = { ...BASE_HEADERS };
        for (const k of Object.keys(headers)) if (k.toLowerCase() === header.toLowerCase()) delete headers[k];
        headers[header] = value;
        events.push(proxyEvent({ ...r, headers }));
        labels.push({ request: i, header, value });
      }
    }
  });
  const answers = await invokePackaged(method.fn, root, events, env);
  const matter = new Map<string, string>();
  answers.forEach((a, j) => {
    const { request, header, value } = labels[j];
    if (stored(a) !== stored(baselines[2 * request]) && !matter.has(header))
      matter.set(
        header,
        `${header}: ${value} on ${JSON.stringify(requests[request].query ?? requests[request].pathParameters)} → ${a.statusCode}`,
      );
  });
  return matter;
}

const databaseEnv = () => ({ DATABASE_URL: inject('databaseUrl'), DB_DRIVER: 'postgres', DB_POOL_MAX: '1' });

describe('the stage cache key of every cached method holds every header that changes its answer', () => {
  it('finds the cached methods: the GeoJSON/tile read and the OGC tile', () => {
    expect(
      cachedMethods()
        .map((m) => m.resource)
        .sort(),
    ).toEqual([
      '/api/geodatasets/get',
      '/api/geodatasets/get/{layer}',
      '/api/ogc/collections/{collectionId}/tiles/{tileMatrixSetId}/{tileMatrix}/{tileRow}/{tileCol}',
    ]);
  });

  for (const [label, extra] of [
    ['with the front door (PUBLIC_URL)', {}],
    ['without the front door (no PUBLIC_URL)', { PUBLIC_URL: '' }],
  ] as const) {
    it(`${label}: no header outside the key changes an answer`, async () => {
      expect(cachedMethods()).toHaveLength(3);
      const missing: string[] = [];
      for (const method of cachedMethods()) {
        const matter = await headersThatMatter(method, { ...databaseEnv(), ...extra });
        const keyed = method.keys
          .filter((k) => k.startsWith('method.request.header.'))
          .map((k) => k.slice('method.request.header.'.length).toLowerCase());
        for (const [header, example] of matter)
          if (!keyed.includes(header.toLowerCase())) missing.push(`${method.resource}: ${example}`);
      }
      // Each entry: a header that changed an answer but is not in that method's CacheKeyParameters.
      expect(missing).toEqual([]);
    }, 600_000);
  }
});
