import { endpoint } from '#lib/http/endpoint.ts';
import { guardInput, parseGuardedJson } from '#lib/http/inputGuards.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { webhooksSaved } from '#lib/http/openapi/shapes/webhooks.ts';
import { parseWebhooksConfig, saveWebhooksConfig } from '#lib/webhooks/config.ts';

const body = { type: 'object', required: ['config'], properties: { config: {} } } as const;

/** Runs the input guards on JSON text inside the config; malformed text is left to `parseWebhooksConfig` to name. */
function guardJsonText(text: string, field: string): void {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return;
  }
  guardInput(value, 'body field', { prefix: field });
}

/**
 * The page sends `config` as JSON text, and each webhook's `header` and `body` as JSON text inside it:
 * each text passes the input guards (no NUL, nesting, reserved keys; docs/input.md) like any body, a 400
 * naming the field.
 */
function guardedConfig(config: unknown): unknown {
  const parsed = typeof config === 'string' ? parseGuardedJson(config, 'config') : config;
  const list = (parsed as { webhooks?: unknown } | null)?.webhooks;
  if (Array.isArray(list)) {
    list.forEach((wh, i) => {
      for (const key of ['header', 'body'] as const) {
        const text = (wh as Record<string, unknown> | null)?.[key];
        if (typeof text === 'string') guardJsonText(text, `config.webhooks[${i}].${key}`);
      }
    });
  }
  return parsed;
}

/** POST /api/webhooks/save `{config}`: the Webhooks page's save, a new entry in force from now on. */
export const handler = endpoint(
  { auth: 'admin', body: 'json-or-form', schema: { body }, responses: ok(webhooksSaved) },
  async ({ body, principal, db }) => {
    const config = parseWebhooksConfig(guardedConfig(body.config));
    await saveWebhooksConfig(db.sql, config, principal.user?.username ?? null);
    return { status: 'success', message: 'Successfully saved webhooks config.' };
  },
);
