import middy from '@middy/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { Db } from '#lib/db/index.ts';
import { authentication } from '#lib/http/middleware/authentication.ts';
import { database } from '#lib/http/middleware/database.ts';
import { errorResponse } from '#lib/http/middleware/errorResponse.ts';
import { proxyResult } from '#lib/http/middleware/proxyResult.ts';
import type { EndpointContext } from '#lib/http/middleware/types.ts';
import { failureResult, fakeContext, fakeEvent } from './fakeRequest.ts';

const json = { 'Content-Type': 'application/json; charset=utf-8' };

/** A database that must not be reached: refusals and anonymous callers are decided from headers alone. */
const unreachable = {
  sql: () => {
    throw new Error('the database was queried');
  },
} as unknown as Db;

function guarded(rule: 'public' | 'viewer' | 'admin') {
  return middy(async (_e: unknown, context: EndpointContext) => ({ user: context.principal.user })).use([
    errorResponse(),
    proxyResult(),
    database({ db: () => unreachable }),
    authentication({ rule }),
  ] as never[]);
}

describe('authentication', () => {
  afterEach(() => {
    delete process.env.AUTH;
  });

  it('lets an anonymous caller through a public endpoint', async () => {
    expect(await guarded('public')(fakeEvent(), fakeContext())).toEqual({
      statusCode: 200,
      headers: json,
      multiValueHeaders: undefined,
      body: '{"user":null}',
    });
  });

  it('refuses an anonymous caller on an admin endpoint with 401 before the endpoint runs', async () => {
    expect(await guarded('admin')(fakeEvent(), fakeContext())).toEqual(
      failureResult(401, 'Authentication required: log in or send Authorization: Bearer <token>.'),
    );
  });

  it('viewer: open under AUTH=none, 401 under AUTH=local', async () => {
    expect(
      ((await guarded('viewer')(fakeEvent(), fakeContext())) as unknown as { statusCode: number }).statusCode,
    ).toBe(200);
    process.env.AUTH = 'local';
    expect(await guarded('viewer')(fakeEvent(), fakeContext())).toEqual(
      failureResult(401, 'Authentication required: log in or send Authorization: Bearer <token>.'),
    );
  });

  it('refuses a malformed Authorization header with 401, even on a public endpoint', async () => {
    expect(
      await guarded('public')(fakeEvent({ headers: { authorization: 'Basic abc' } }), fakeContext()),
    ).toEqual(failureResult(401, "Invalid Authorization header: expected 'Bearer <token>'."));
  });
});
