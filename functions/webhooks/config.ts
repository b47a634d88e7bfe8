import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { webhooksSaved } from '#lib/http/openapi/shapes/webhooks.ts';

/**
 * POST /api/webhooks/config: the established server reloads its cached webhooks here. Every trigger here
 * reads the newest save, so there is nothing to reload: it answers as that server does.
 */
export const handler = endpoint(
  { auth: 'admin', body: 'json-or-form', responses: ok(webhooksSaved) },
  async () => ({ status: 'success', message: 'Successfully updated webhooks config.' }),
);
