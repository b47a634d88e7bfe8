import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { endpoint } from '#lib/http/endpoint.ts';
import { fakeEvent } from './fakeRequest.ts';

describe("an endpoint whose function's time runs out (lib/http/endpoint.ts)", () => {
  it('answers 503 with our failure shape and Retry-After, never a 500', async () => {
    const handler = endpoint({ auth: 'public' }, async () => {
      await new Promise((r) => setTimeout(r, 2_000));
      return { status: 'success' };
    });
    // serverless-offline and Lambda give the context its remaining time; middy ends the handler 5 ms before it.
    const context = { awsRequestId: 'req-1', functionName: 'test', getRemainingTimeInMillis: () => 200 };
    const res = await handler(fakeEvent(), context as unknown as Context);
    expect(res.statusCode).toBe(503);
    expect(res.headers?.['Retry-After']).toBe('5');
    expect(JSON.parse(res.body)).toEqual({
      status: 'failure',
      message: expect.stringMatching(/did not finish within the time limit.*may still complete/),
    });
  });
});
