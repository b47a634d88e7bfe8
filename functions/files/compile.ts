import { compile } from '#lib/draw/compile.ts';
import { epochMs } from '#lib/draw/schemas.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { compileAnswer } from '#lib/http/openapi/shapes/draw.ts';

const query = {
  type: 'object',
  properties: {
    time: epochMs,
    verbose: { type: 'boolean', default: false },
  },
} as const;

const options = { auth: 'user', schema: { query }, responses: ok(compileAnswer) } as const;

export const handler = endpoint(options, async ({ query, db }) => {
  const result = await compile(db.sql, query.time ?? Number.MAX_SAFE_INTEGER, query.verbose);
  return { status: 'success', message: 'Compiled.', body: result };
});
