import middy from '@middy/core';
import { describe, expect, it } from 'vitest';
import { errorResponse } from '#lib/http/middleware/errorResponse.ts';
import { proxyResult } from '#lib/http/middleware/proxyResult.ts';
import type { EndpointContext } from '#lib/http/middleware/types.ts';
import { validator } from '#lib/http/middleware/validator.ts';
import { failureResult, fakeContext, fakeEvent } from './fakeRequest.ts';

const json = { 'Content-Type': 'application/json; charset=utf-8' };

const schemas = {
  query: {
    type: 'object',
    properties: { limit: { type: 'integer', default: 10 }, full: { type: 'boolean' } },
  },
  path: { type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 5 } } },
  body: { type: 'object', required: ['layer'], properties: { layer: { type: 'string' } } },
};

const handler = middy(async (_event: unknown, context: EndpointContext) => context.parts).use([
  errorResponse(),
  proxyResult(),
  validator({ schemas }),
] as never[]);

describe('validator', () => {
  it('coerces query and path strings, fills defaults, passes the body', async () => {
    const res = await handler(
      fakeEvent({
        queryStringParameters: { full: 'true' },
        pathParameters: { name: 'abc' },
        body: { layer: 'x' } as unknown as string,
      }),
      fakeContext(),
    );
    expect(res).toEqual({
      statusCode: 200,
      headers: json,
      multiValueHeaders: undefined,
      body: JSON.stringify({
        query: { full: true, limit: 10 },
        path: { name: 'abc' },
        body: { layer: 'x' },
        rawBody: null,
      }),
    });
  });

  it.each([
    [
      { pathParameters: { name: 'toolong' } },
      "URL segment 'name' must NOT have more than 5 characters (maxLength 5).",
    ],
    [
      { pathParameters: { name: 'a' }, queryStringParameters: { limit: 'ten' } },
      "Query parameter 'limit' must be integer.",
    ],
    [{ httpMethod: 'POST', pathParameters: { name: 'a' } }, 'A JSON request body is required.'],
    [
      { pathParameters: { name: 'a' }, body: {} as unknown as string },
      "Missing required body field 'layer'.",
    ],
  ])('refuses %j with 400 naming the field', async (over, message) => {
    expect(await handler(fakeEvent(over), fakeContext())).toEqual(failureResult(400, message));
  });
});

describe("validator: format 'uuid' (lib/formats.ts)", () => {
  const uuidHandler = middy(async (_event: unknown, context: EndpointContext) => context.parts.path).use([
    errorResponse(),
    proxyResult(),
    validator({
      schemas: {
        path: { type: 'object', required: ['id'], properties: { id: { type: 'string', format: 'uuid' } } },
      },
    }),
  ] as never[]);

  it.each(['3f1c2a9e-6a55-4a8e-9d7a-0c1b2d3e4f50', '3F1C2A9E-6A55-4A8E-9D7A-0C1B2D3E4F50'])(
    'passes %s',
    async (id) => {
      const res = await uuidHandler(fakeEvent({ pathParameters: { id } }), fakeContext());
      expect(res.statusCode).toBe(200);
    },
  );

  it.each([
    'not-a-uuid',
    'urn:uuid:3f1c2a9e-6a55-4a8e-9d7a-0c1b2d3e4f50',
    '3f1c2a9e6a554a8e9d7a0c1b2d3e4f50',
    '{3f1c2a9e-6a55-4a8e-9d7a-0c1b2d3e4f50}',
  ])('refuses %s with 400 naming the field', async (id) => {
    expect(await uuidHandler(fakeEvent({ pathParameters: { id } }), fakeContext())).toEqual(
      failureResult(400, `URL segment 'id' must match format "uuid".`),
    );
  });
});
