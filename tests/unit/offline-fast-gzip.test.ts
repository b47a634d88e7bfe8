import { createRequire } from 'node:module';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const { compressionModule, fastGzip, LEVEL } = require('../../local/offline/fast-gzip.cjs');
const Hapi = require('@hapi/hapi');

/** A JSON body like an items page: many similar features. */
const body = JSON.stringify(
  Array.from({ length: 2000 }, (_, i) => ({
    type: 'Feature',
    id: i,
    geometry: { type: 'Point', coordinates: [Math.sin(i) * 180, Math.cos(i) * 90] },
    properties: { name: `name-${(i * 7919) % 10007}`, n: (i * 104729) % 1000003 },
  })),
);

/** The wire bytes of a real hapi server's (serverless-offline's) answer to a request that accepts gzip. */
async function gzippedAnswer(): Promise<Buffer> {
  const server = Hapi.server();
  server.route({
    method: 'GET',
    path: '/',
    handler: (_r: unknown, h: any) => h.response(body).type('application/json'),
  });
  const res = await server.inject({ url: '/', headers: { 'accept-encoding': 'gzip' } });
  expect(res.headers['content-encoding']).toBe('gzip');
  return res.rawPayload;
}

describe('offline-fast-gzip plugin (docs/web.md, "Compression")', () => {
  it("finds the hapi serverless-offline uses, and makes its gzip zlib's fastest level", async () => {
    const before = await gzippedAnswer();
    expect(gunzipSync(before).toString()).toBe(body);
    expect(before.length).toBe(gzipSync(body).length);

    const Compression = compressionModule(process.cwd());
    expect(Compression).toBe(require('@hapi/hapi/lib/compression.js'));
    expect(fastGzip(Compression)).toBe(true);
    expect(fastGzip(Compression)).toBe(true);

    const after = await gzippedAnswer();
    expect(gunzipSync(after).toString()).toBe(body);
    expect(after.length).toBe(gzipSync(body, { level: LEVEL }).length);
    expect(after.length).not.toBe(before.length);
  });
});
