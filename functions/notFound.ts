import { notFound } from '#lib/errors.ts';
import { endpoint } from '#lib/http/endpoint.ts';

/** Catch-all for unknown /api/... routes: a JSON 404 instead of the gateway's own page. */
export const handler = endpoint({ auth: 'public', body: 'raw' }, async ({ event }) => {
  throw notFound(`No such endpoint: ${event.httpMethod} ${event.path}.`);
});
