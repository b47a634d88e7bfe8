import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const { reshape } = require('../../local/offline/failure-shape.cjs');
const Boom = require(require.resolve('@hapi/boom', { paths: [require.resolve('@hapi/hapi')] }));

const h = { continue: Symbol('continue') };

describe("offline-failure-shape plugin: hapi's own refusals have our failure shape", () => {
  it('a body over the route limit: 413 naming the local limit and the API limit', () => {
    const request = {
      response: Boom.entityTooLarge('Payload content length greater than maximum allowed: 10485760'),
      route: { settings: { payload: { maxBytes: 10485760 } } },
    };
    expect(reshape(request, h)).toBe(h.continue);
    expect(request.response.output.statusCode).toBe(413);
    expect(request.response.output.payload).toEqual({
      status: 'failure',
      message: expect.stringMatching(/larger than 10485760 bytes .*at most 6291456 bytes/),
    });
  });

  it("another refusal keeps hapi's message; a function's answer is untouched", () => {
    const request = { response: Boom.badRequest('Invalid cookie value') };
    reshape(request, h);
    expect(request.response.output.payload).toEqual({ status: 'failure', message: 'Invalid cookie value' });
    const answer = { response: { statusCode: 200, source: '{"status":"success"}' } };
    reshape(answer, h);
    expect(answer.response).toEqual({ statusCode: 200, source: '{"status":"success"}' });
  });
});
