import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { webhooksEntries } from '#lib/http/openapi/shapes/webhooks.ts';
import { webhooksEntries as readEntries } from '#lib/webhooks/config.ts';

/** GET /api/webhooks/entries: the saved configurations, newest first (the page reads `entries[0]`). */
export const handler = endpoint({ auth: 'admin', responses: ok(webhooksEntries) }, async ({ db }) => ({
  status: 'success',
  body: { entries: await readEntries(db.sql) },
}));
