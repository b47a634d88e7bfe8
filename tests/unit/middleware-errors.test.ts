import middy from '@middy/core';
import { describe, expect, it } from 'vitest';
import { HttpError } from '#lib/errors.ts';
import { errorResponse } from '#lib/http/middleware/errorResponse.ts';
import { proxyResult } from '#lib/http/middleware/proxyResult.ts';
import { respond } from '#lib/http/response.ts';
import { failureResult, fakeContext, fakeEvent } from './fakeRequest.ts';

const json = { 'Content-Type': 'application/json; charset=utf-8' };

function stack(fn: () => Promise<unknown>) {
  return middy(fn).use([errorResponse(), proxyResult()]);
}

describe('errorResponse + proxyResult', () => {
  it('serializes a plain value as 200 JSON', async () => {
    const res = await stack(async () => ({ status: 'success', n: 1 }))(fakeEvent(), fakeContext());
    expect(res).toEqual({
      statusCode: 200,
      headers: json,
      multiValueHeaders: undefined,
      body: '{"status":"success","n":1}',
    });
  });

  it('passes a respond() with cookies through', async () => {
    const res = await stack(async () => respond(201, { ok: true }, { cookies: ['a=1'] }))(
      fakeEvent(),
      fakeContext(),
    );
    expect(res).toEqual({
      statusCode: 201,
      headers: json,
      multiValueHeaders: { 'Set-Cookie': ['a=1'] },
      body: '{"ok":true}',
    });
  });

  it('turns an HttpError into {status:failure, message, ...extra} with its code', async () => {
    const res = await stack(async () => {
      throw new HttpError(409, 'Taken.', { name: 'x' });
    })(fakeEvent(), fakeContext());
    expect(res).toEqual({
      statusCode: 409,
      headers: json,
      multiValueHeaders: undefined,
      body: '{"status":"failure","message":"Taken.","name":"x"}',
    });
  });

  it('answers a statement timeout with 503', async () => {
    const res = await stack(async () => {
      throw Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' });
    })(fakeEvent(), fakeContext());
    expect(res).toEqual(failureResult(503, 'The database took too long to answer; try a narrower request.'));
  });

  it('answers anything else with 500 naming only the request id', async () => {
    const res = await stack(async () => {
      throw new Error('secret internals');
    })(fakeEvent(), fakeContext());
    expect(res).toEqual(failureResult(500, 'Internal error (request req-1).'));
  });
});
