import { compile } from '#lib/draw/compile.ts';
import { endpoint } from '#lib/http/endpoint.ts';

const query = {
  type: 'object',
  properties: {
    time: { type: 'integer', minimum: 0 },
    verbose: { type: 'boolean', default: false },
  },
} as const;

export const handler = endpoint({ auth: 'user', schema: { query } }, async ({ query, db }) => {
  const result = await compile(db.sql, query.time ?? Number.MAX_SAFE_INTEGER, query.verbose);
  return { status: 'success', message: 'Compiled.', body: result };
});
