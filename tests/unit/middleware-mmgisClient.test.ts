import { afterEach, describe, expect, it } from 'vitest';
import { HttpError } from '#lib/errors.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { isMmgisClient } from '#lib/http/middleware/clientFailures.ts';
import { fakeContext, fakeEvent } from './fakeRequest.ts';

const json = 'application/json; charset=utf-8';
const cors = { 'Access-Control-Expose-Headers': 'ETag, Location', 'Access-Control-Allow-Origin': '*' };
const xhr = { 'X-Requested-With': 'XMLHttpRequest' };

/** A public endpoint whose body declares typed fields, echoing the validated body. */
const typed = endpoint(
  {
    auth: 'public',
    schema: {
      body: {
        type: 'object',
        required: ['id'],
        properties: {
          id: { type: 'integer' },
          flag: { type: 'boolean' },
          ids: { type: 'array', items: { type: 'integer' } },
          nested: { type: 'object', properties: { n: { type: 'number' } } },
          note: { type: ['string', 'null'] },
        },
      },
    },
  },
  async ({ body }) => ({ status: 'success', body }),
);

const post = (body: string, headers: Record<string, string>) =>
  typed(fakeEvent({ httpMethod: 'POST', headers, body }), fakeContext());

describe('form bodies give the same typed input as JSON (lib/http/middleware/validator.ts)', () => {
  it('coerces a jQuery form by the body schema', async () => {
    const sent = { id: 3, flag: false, ids: [1, 2], nested: { n: 1.5 }, note: 'x' };
    const fromJson = await post(JSON.stringify(sent), { 'Content-Type': 'application/json' });
    const fromForm = await post('id=3&flag=false&ids%5B%5D=1&ids%5B%5D=2&nested%5Bn%5D=1.5&note=x', {
      'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8',
    });
    expect(fromJson.statusCode).toBe(200);
    expect(JSON.parse(fromJson.body)).toEqual({ status: 'success', body: sent });
    expect(fromForm.body).toBe(fromJson.body);
    // One value where a list is declared is a one-item list.
    const one = await post('id=3&ids=7', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(JSON.parse(one.body).body).toEqual({ id: 3, ids: [7] });
  });

  it('names the field a form value cannot be coerced for; JSON keeps its strict types', async () => {
    const bad = await post('id=three', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(bad.statusCode).toBe(400);
    expect(JSON.parse(bad.body)).toEqual({ status: 'failure', message: "Body field 'id' must be integer." });
    const jsonString = await post('{"id":"3"}', { 'content-type': 'application/json' });
    expect(jsonString.statusCode).toBe(400);
  });
});

describe("the MMGIS client's failure convention (docs/contract.md, section 1)", () => {
  afterEach(() => {
    delete process.env.CORS_ORIGINS;
    delete process.env.LOG_LEVEL;
  });

  it('recognizes jQuery’s same-origin marker only', () => {
    expect(isMmgisClient({ 'x-requested-with': 'XMLHttpRequest' })).toBe(true);
    expect(isMmgisClient({ 'X-Requested-With': 'xmlhttprequest' })).toBe(true);
    expect(isMmgisClient({ 'x-requested-with': 'fetch' })).toBe(false);
    expect(isMmgisClient({})).toBe(false);
    expect(isMmgisClient(null)).toBe(false);
  });

  it('answers an expected failure 200 with the same body for the client, the real status for others', async () => {
    const failure = JSON.stringify({ status: 'failure', message: "Missing required body field 'id'." });
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    expect(await post('', { ...form, ...xhr })).toEqual({
      statusCode: 200,
      headers: { ...cors, 'Content-Type': json, Vary: 'X-Requested-With' },
      multiValueHeaders: undefined,
      body: failure,
    });
    expect(await post('', form)).toEqual({
      statusCode: 400,
      headers: { ...cors, 'Content-Type': json, Vary: 'X-Requested-With' },
      multiValueHeaders: undefined,
      body: failure,
    });
    // Success is the same for both, with no Vary.
    const ok = await post('id=1', { ...form, ...xhr });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers).toEqual({ ...cors, 'Content-Type': json });
  });

  it('converts every 4xx failure with its headers (401, 403, 404, 409, 415, 429), never a 5xx', async () => {
    process.env.LOG_LEVEL = 'silent'; // the 500 below is logged as an unhandled error
    for (const status of [401, 403, 404, 409, 415, 429, 500, 503]) {
      const h = endpoint({ auth: 'public' }, async () => {
        if (status === 500) throw new Error('boom');
        throw new HttpError(status, `failed ${status}`);
      });
      process.env.CORS_ORIGINS = 'https://app.example';
      const res = await h(fakeEvent({ headers: { ...xhr, Origin: 'https://app.example' } }), fakeContext());
      expect(res.statusCode).toBe(status < 500 ? 200 : status);
      expect(JSON.parse(res.body).status).toBe('failure');
      expect(res.headers?.Vary).toBe(status < 500 ? 'X-Requested-With, Origin' : 'Origin');
    }
  });

  it("keeps the real status for a file route (`failures: 'real-status'`), whoever asks", async () => {
    const h = endpoint({ auth: 'public', failures: 'real-status' }, async () => {
      throw new HttpError(403, "You may not view mission 'M'.");
    });
    for (const headers of [xhr, {}]) {
      const res = await h(fakeEvent({ headers }), fakeContext());
      expect(res.statusCode).toBe(403);
      expect(res.headers?.Vary).toBeUndefined();
    }
  });

  it('leaves a 4xx that is not a failure body alone', async () => {
    const h = endpoint({ auth: 'public', body: 'raw' }, async () => ({
      __response: true,
      statusCode: 404,
      body: { type: 'FeatureCollection', features: [] },
    }));
    const res = await h(fakeEvent({ headers: xhr }), fakeContext());
    expect(res.statusCode).toBe(404);
  });
});
