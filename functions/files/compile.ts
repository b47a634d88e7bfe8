import { compile } from '#lib/draw/compile.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { compileAnswer } from '#lib/http/openapi/shapes/draw.ts';

const query = {
  type: 'object',
  properties: {
    time: { type: 'integer', minimum: 0 },
    verbose: { type: 'boolean', default: false },
  },
} as const;

export const handler = endpoint(
  { auth: 'user', schema: { query }, responses: { 200: { schema: compileAnswer } } },
  async ({ query, db }) => {
    const result = await compile(db.sql, query.time ?? Number.MAX_SAFE_INTEGER, query.verbose);
    return { status: 'success', message: 'Compiled.', body: result };
  },
);
