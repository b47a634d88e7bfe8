import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { webhooksSaved } from '#lib/http/openapi/shapes/webhooks.ts';
import { parseWebhooksConfig, saveWebhooksConfig } from '#lib/webhooks/config.ts';

const body = { type: 'object', required: ['config'], properties: { config: {} } } as const;

/** POST /api/webhooks/save `{config}`: the Webhooks page's save, a new entry in force from now on. */
export const handler = endpoint(
  { auth: 'admin', body: 'json-or-form', schema: { body }, responses: ok(webhooksSaved) },
  async ({ body, principal, db }) => {
    const config = parseWebhooksConfig(body.config);
    await saveWebhooksConfig(db.sql, config, principal.user?.username ?? null);
    return { status: 'success', message: 'Successfully saved webhooks config.' };
  },
);
