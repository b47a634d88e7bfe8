import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '#lib/db/index.ts';
import { adminToken, apiUrl, apiUrlLocal, call, uniqueName, userWithSession } from '../helpers.ts';

/**
 * Webhooks as the configure app's Webhooks page uses them (docs/webhooks.md): save, entries, config,
 * and the calls the service makes after draw changes, received here by a small HTTP server on loopback.
 * The AUTH=none test service may call loopback (WEBHOOK_ALLOW_PRIVATE=true, tests/setup/global.ts); the
 * AUTH=local one may not. The configuration is service-wide: the last test saves an empty one.
 */

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

let receiver: Server;
let base = '';
const received: Received[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      // A receiver that never answers: the call must time out.
      if (req.url?.startsWith('/slow')) return;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"status":"success"}');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await call('POST', '/api/webhooks/save', {
    body: { config: JSON.stringify({ webhooks: [] }) },
    token: adminToken(),
  });
  receiver.closeAllConnections();
  await new Promise((r) => receiver.close(r));
});

const save = (config: unknown, opts: { base?: string } = {}) =>
  call('POST', '/api/webhooks/save', { body: { config }, token: adminToken(), ...opts });

async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}; received ${JSON.stringify(received.map((r) => r.url))}`);
}

const deliveries = async (fileId: number) =>
  getDb().sql`select * from webhook_deliveries where file_id = ${fileId} order by id`;

describe('the Webhooks page: save, entries, config', () => {
  it('stores what the page saves and lists it newest first, config as JSON text', async () => {
    const first = { webhooks: [{ action: 'DrawFileAdd', type: 'POST', url: 'https://a.example/x' }] };
    const second = {
      webhooks: [
        {
          action: 'DrawFileChange',
          type: 'PATCH',
          url: 'https://b.example/{file_id}',
          header: '{"Content-Type": "application/json"}',
          body: '{"id": "{file_id}"}',
        },
      ],
    };
    // The page sends JSON `{config: "<JSON text>"}`; a jQuery-style form works too.
    expect((await save(JSON.stringify(first))).body).toEqual({
      status: 'success',
      message: 'Successfully saved webhooks config.',
    });
    const form = await call('POST', '/api/webhooks/save', {
      body: new URLSearchParams({ config: JSON.stringify(second) }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      token: adminToken(),
    });
    expect(form.status).toBe(200);
    const res = await call('GET', '/api/webhooks/entries', { token: adminToken() });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    const [newest, older] = res.body.body.entries;
    expect(JSON.parse(newest.config)).toEqual(second);
    expect(JSON.parse(older.config)).toEqual(first);
    expect(Date.parse(newest.updated)).toBeGreaterThanOrEqual(Date.parse(older.updated));

    const cfg = await call('POST', '/api/webhooks/config', { body: {}, token: adminToken() });
    expect(cfg.body).toEqual({ status: 'success', message: 'Successfully updated webhooks config.' });
  });

  it('stores a row whose dropdowns were left untouched (null) as sent, and lists it so', async () => {
    // The page sends null for a dropdown the user did not touch; it shows the row as listed after a reload.
    const config = {
      webhooks: [
        { action: null, type: null, url: 'https://a.example/{file_id}', header: null, body: null },
        { action: 'DrawFileAdd', type: '', url: '', header: '', body: '' },
      ],
    };
    const res = await save(JSON.stringify(config));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const entries = await call('GET', '/api/webhooks/entries', { token: adminToken() });
    expect(JSON.parse(entries.body.body.entries[0].config)).toEqual(config);
  });

  it.each([
    ['config that is not JSON', '{"webhooks": [', "'config'"],
    ['webhooks that are not an array', { webhooks: 'x' }, "'config.webhooks'"],
    ['an unknown action', { webhooks: [{ action: 'Nope' }] }, "'config.webhooks[0].action'"],
    ['an unknown method', { webhooks: [{ type: 'TRACE' }] }, "'config.webhooks[0].type'"],
    ['a header that is not JSON', { webhooks: [{ header: '{bad' }] }, "'config.webhooks[0].header'"],
    ['a body that is not an object', { webhooks: [{ body: '[1]' }] }, "'config.webhooks[0].body'"],
    // The input guards (docs/input.md) on the JSON texts, as on any body: once a 500.
    [
      'config text holding a NUL',
      '{"webhooks": [{"url": "http://a.test/\\u0000"}]}',
      "'config.webhooks[0].url'",
    ],
    [
      'config text nested 4,500 deep',
      `{"webhooks": [${'['.repeat(4500)}${']'.repeat(4500)}]}`,
      'nested deeper',
    ],
    ['a reserved key in the config text', '{"webhooks": [], "__proto__": {"x": 1}}', "'config.__proto__'"],
    [
      'a header text nested 4,500 deep',
      { webhooks: [{ header: `{"a": ${'['.repeat(4500)}${']'.repeat(4500)}}` }] },
      "'config.webhooks[0].header",
    ],
    [
      'a body text holding a NUL',
      { webhooks: [{ body: '{"a": "\\u0000"}' }] },
      "'config.webhooks[0].body.a'",
    ],
  ])('refuses %s with a 400 naming the field', async (_label, config, field) => {
    const res = await save(config);
    expect(res.status).toBe(400);
    expect(res.body.status).toBe('failure');
    expect(res.body.message).toContain(field);
  });

  it('is for administrators only', async () => {
    const user = await userWithSession('user', [], apiUrlLocal());
    const asUser = await call('GET', '/api/webhooks/entries', { cookie: user.cookie, base: apiUrlLocal() });
    expect(asUser.status).toBe(403);
    const anonymous = await call('POST', '/api/webhooks/save', {
      body: { config: '{"webhooks":[]}' },
      base: apiUrlLocal(),
    });
    expect(anonymous.status).toBe(401);
  });
});

describe('calls after draw changes', () => {
  const webhooks = () => ({
    webhooks: [
      {
        action: 'DrawFileAdd',
        type: 'POST',
        url: `${base}/added/{file_id}?name={file_name}&key=secret`,
        header: '{"Content-Type": "application/json", "X-Token": "t0k"}',
        body: '{"id": "{file_id}", "name": "{file_name}", "tags": "{tags}", "description": "{file_description}", "geojson": "{geojson}", "fixed": "kept"}',
      },
      {
        action: 'DrawFileChange',
        type: 'PUT',
        url: `${base}/changed/{file_id}`,
        header: '{"Content-Type": "application/json"}',
        body: '{"id": "{file_id}", "geojson": "{geojson}"}',
      },
      {
        action: 'DrawFileDelete',
        type: 'DELETE',
        url: `${base}/deleted/{file_id}`,
        body: '{"owner": "{file_owner}"}',
      },
    ],
  });
  const post = (path: string, body: unknown, url = apiUrl()) =>
    call('POST', path, { body, token: adminToken(), base: url });
  const callsFor = (prefix: string, id: number) =>
    received.filter((r) => r.url.startsWith(`/${prefix}/${id}`));

  it('sends the body the established server sends on file add, change and delete', async () => {
    expect((await save(JSON.stringify(webhooks()))).status).toBe(200);
    const name = uniqueName('hook file');
    const made = await post('/api/files/make', {
      file_name: name,
      file_description: 'Rover path ~#traverse ~@ops',
      intent: 'all',
    });
    expect(made.status).toBe(200);
    const id = made.body.body.file_id as number;

    const add = await waitFor('the DrawFileAdd call', () => callsFor('added', id)[0]);
    expect(add.method).toBe('POST');
    expect(add.url).toBe(`/added/${id}?name=${encodeURIComponent(name)}&key=secret`);
    expect(add.headers['x-token']).toBe('t0k');
    expect(add.headers['content-type']).toBe('application/json');
    expect(JSON.parse(add.body)).toEqual({
      id,
      name,
      tags: ['traverse'],
      description: 'Rover path',
      geojson: { type: 'FeatureCollection', features: [] },
      fixed: 'kept',
    });

    const point = { type: 'Point', coordinates: [10, 20] };
    expect((await post('/api/draw/add', { file_id: id, geometry: point })).status).toBe(200);
    const change = await waitFor('the DrawFileChange call', () => callsFor('changed', id)[0]);
    expect(change.method).toBe('PUT');
    const sent = JSON.parse(change.body);
    expect(sent.id).toBe(id);
    expect(sent.geojson.features).toHaveLength(1);
    expect(sent.geojson.features[0].geometry).toEqual(point);

    expect((await post('/api/files/remove', { id })).status).toBe(200);
    const del = await waitFor('the DrawFileDelete call', () => callsFor('deleted', id)[0]);
    expect(del.method).toBe('DELETE');
    // No Content-Type given: sent as node-fetch sends a string body.
    expect(del.headers['content-type']).toBe('text/plain;charset=UTF-8');
    expect(JSON.parse(del.body).owner).toBeTypeOf('string');

    // Logged: each call is recorded without the URL's query.
    const rows = await waitFor('three recorded calls', async () => {
      const r = await deliveries(id);
      return r.length >= 3 ? r : undefined;
    });
    expect(rows.map((r) => [r.action, r.method, r.outcome, r.status])).toEqual([
      ['DrawFileAdd', 'POST', 'sent', 200],
      ['DrawFileChange', 'PUT', 'sent', 200],
      ['DrawFileDelete', 'DELETE', 'sent', 200],
    ]);
    expect(rows[0].target).toBe(`${base}/added/${id}`);
  });

  it('never fires a row without an action or URL; sends a row without a method as GET, as the page shows it', async () => {
    const config = {
      webhooks: [
        { action: null, type: 'POST', url: `${base}/no-action/{file_id}`, header: null, body: null },
        { action: 'DrawFileAdd', type: 'POST', url: null, header: null, body: null },
        { action: 'DrawFileAdd', type: null, url: `${base}/no-method/{file_id}`, header: null, body: null },
      ],
    };
    expect((await save(JSON.stringify(config))).status).toBe(200);
    const made = await post('/api/files/make', { file_name: uniqueName('null hooks') });
    expect(made.status).toBe(200);
    const id = made.body.body.file_id as number;
    const call1 = await waitFor('the call without a method', () => callsFor('no-method', id)[0]);
    expect(call1.method).toBe('GET');
    expect(call1.body).toBe('');
    const rows = await waitFor('the recorded call', async () => {
      const r = await deliveries(id);
      return r.length ? r : undefined;
    });
    // Only the row with an action and a URL was called (the others are not even recorded).
    await new Promise((r) => setTimeout(r, 500));
    expect((await deliveries(id)).map((r) => [r.action, r.method, r.outcome])).toEqual([
      ['DrawFileAdd', 'GET', 'sent'],
    ]);
    expect(rows).toHaveLength(1);
    expect(callsFor('no-action', id)).toHaveLength(0);
  });

  it('refuses a loopback receiver when WEBHOOK_ALLOW_PRIVATE is not set', async () => {
    expect((await save(JSON.stringify(webhooks()))).status).toBe(200);
    // The AUTH=local test service runs without WEBHOOK_ALLOW_PRIVATE.
    const made = await post('/api/files/make', { file_name: uniqueName('private') }, apiUrlLocal());
    expect(made.status).toBe(200);
    const id = made.body.body.file_id as number;
    const [row] = await waitFor('the refused call', async () => {
      const r = await deliveries(id);
      return r.length ? r : undefined;
    });
    expect(row.outcome).toBe('refused');
    expect(row.error).toMatch(/127\.0\.0\.1.*loopback.*WEBHOOK_ALLOW_PRIVATE/);
    expect(callsFor('added', id)).toHaveLength(0);
  });

  it('gives up on a receiver that does not answer (timeout), and logs it', async () => {
    const slow = {
      webhooks: [{ action: 'DrawFileAdd', type: 'POST', url: `${base}/slow/{file_id}`, body: '{"a": 1}' }],
    };
    expect((await save(JSON.stringify(slow))).status).toBe(200);
    const made = await post('/api/files/make', { file_name: uniqueName('slow') });
    const id = made.body.body.file_id as number;
    await waitFor('the slow call', () => received.find((r) => r.url === `/slow/${id}`));
    const [row] = await waitFor('the timed-out call', async () => {
      const r = await deliveries(id);
      return r.length ? r : undefined;
    });
    expect(row.outcome).toBe('failed');
    expect(row.error).toMatch(/timed out/);
    expect(row.ms).toBeGreaterThanOrEqual(4000);
  });
});
