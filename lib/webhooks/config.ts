import type { Queryable } from '#lib/db/index.ts';
import { badRequest } from '#lib/errors.ts';

/**
 * The webhooks configuration of the configure app's Webhooks page (docs/webhooks.md): the page saves
 * `{config: JSON text of {webhooks: [...]}}`, each webhook `{action, type, url, header, body}` with
 * `header` and `body` the JSON text typed in the page. Stored as sent; the newest save is in force.
 */
export const WEBHOOK_ACTIONS = ['DrawFileAdd', 'DrawFileChange', 'DrawFileDelete'] as const;
export type WebhookAction = (typeof WEBHOOK_ACTIONS)[number];
export const WEBHOOK_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;
export const MAX_WEBHOOKS = 100;
const MAX_URL = 2048;

export interface Webhook {
  action?: string;
  type?: string;
  url?: string;
  header?: unknown;
  body?: unknown;
  [key: string]: unknown;
}

/** A field the page left empty: absent, null or ''. */
const unset = (x: unknown) => x === undefined || x === null || x === '';

const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

/** `header`/`body`: a JSON object, or JSON text of one (empty text: none). */
export function jsonObject(value: unknown, field: string): Record<string, unknown> | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw badRequest(`'${field}' is not valid JSON: write a JSON object such as {"key": "value"}.`);
    }
  }
  if (!isObject(parsed)) throw badRequest(`'${field}' must be a JSON object.`);
  return parsed;
}

/** Parses and checks a saved configuration; 400 naming the field. Incomplete rows (being typed) are kept. */
export function parseWebhooksConfig(config: unknown): { webhooks: Webhook[] } {
  let parsed = config;
  if (typeof config === 'string') {
    try {
      parsed = JSON.parse(config);
    } catch {
      throw badRequest('\'config\' is not valid JSON: send the JSON text of {"webhooks": [...]}.');
    }
  }
  if (!isObject(parsed))
    throw badRequest('\'config\' must be an object {"webhooks": [...]} (or its JSON text).');
  const list = parsed.webhooks ?? [];
  if (!Array.isArray(list)) throw badRequest("'config.webhooks' must be an array.");
  if (list.length > MAX_WEBHOOKS)
    throw badRequest(`'config.webhooks' holds at most ${MAX_WEBHOOKS} webhooks.`);
  list.forEach((wh, i) => {
    const at = `config.webhooks[${i}]`;
    if (!isObject(wh)) throw badRequest(`'${at}' must be an object.`);
    // Dropdowns the user left untouched arrive as null (or ''): stored as sent (docs/webhooks.md).
    if (!unset(wh.action) && !WEBHOOK_ACTIONS.includes(wh.action as WebhookAction)) {
      throw badRequest(`'${at}.action' must be one of ${WEBHOOK_ACTIONS.join(', ')}, or null.`);
    }
    if (!unset(wh.type) && !WEBHOOK_METHODS.includes(wh.type as (typeof WEBHOOK_METHODS)[number])) {
      throw badRequest(`'${at}.type' must be one of ${WEBHOOK_METHODS.join(', ')}, or null.`);
    }
    if (!unset(wh.url) && (typeof wh.url !== 'string' || wh.url.length > MAX_URL)) {
      throw badRequest(`'${at}.url' must be a URL of at most ${MAX_URL} characters.`);
    }
    jsonObject(wh.header, `${at}.header`);
    jsonObject(wh.body, `${at}.body`);
  });
  return { ...parsed, webhooks: list as Webhook[] };
}

export async function saveWebhooksConfig(
  sql: Queryable,
  config: { webhooks: Webhook[] },
  savedBy: string | null,
): Promise<void> {
  await sql`insert into webhook_configs (config, saved_by) values (${sql.json(config as any)}, ${savedBy})`;
}

/** The saves, newest first (at most `limit`): `config` as JSON text, as the Webhooks page parses it. */
export async function webhooksEntries(
  sql: Queryable,
  limit = 100,
): Promise<{ config: string; updated: string }[]> {
  const rows = await sql`
    select config, created_at from webhook_configs order by id desc limit ${limit}`;
  return rows.map((r) => ({
    config: JSON.stringify(r.config),
    updated: new Date(r.created_at).toISOString(),
  }));
}

/**
 * The webhooks in force (the newest save) for `action`. A row without an action (null: its dropdown left
 * untouched) or without a URL never fires.
 */
export async function webhooksFor(sql: Queryable, action: WebhookAction): Promise<Webhook[]> {
  const [row] = await sql`select config from webhook_configs order by id desc limit 1`;
  const list = (row?.config as { webhooks?: unknown })?.webhooks;
  return Array.isArray(list)
    ? list.filter((w) => isObject(w) && w.action === action && typeof w.url === 'string' && w.url !== '')
    : [];
}
