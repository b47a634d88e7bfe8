import type { Db, Queryable } from '#lib/db/index.ts';
import { getFiles } from '#lib/draw/read.ts';
import { invokeAsync } from '#lib/jobs/invoke.ts';
import { log } from '#lib/log.ts';
import { jsonObject, type Webhook, type WebhookAction, webhooksFor } from './config.ts';
import { RefusedTarget, send } from './outbound.ts';
import { buildBody, buildUrl, fileVariables, unknownVariables } from './template.ts';

/** The function that calls the receivers, invoked asynchronously so a draw request never waits on one. */
export const DELIVER_FUNCTION = 'webhooksDeliver';

export interface DeliveryEvent {
  action: WebhookAction;
  fileId: number;
  webhooks: Webhook[];
}

/**
 * After a committed draw change (docs/webhooks.md): when webhooks are configured for `action`, invokes the
 * delivery function with them. Never fails the change: problems are logged.
 */
export async function triggerWebhooks(db: Db, action: WebhookAction, fileId: number): Promise<void> {
  try {
    const webhooks = await webhooksFor(db.sql, action);
    if (!webhooks.length) return;
    const event: DeliveryEvent = { action, fileId, webhooks };
    await invokeAsync(DELIVER_FUNCTION, event);
  } catch (e) {
    log('error', 'webhooks could not be started', { action, fileId, error: (e as Error).message });
  }
}

interface Outcome {
  outcome: 'sent' | 'failed' | 'refused';
  status?: number;
  error?: string;
}

/** The URL without its query and fragment (they may carry secrets): what the logs name. */
function targetOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return url.slice(0, 200);
  }
}

async function record(
  sql: Queryable,
  e: DeliveryEvent,
  method: string,
  target: string,
  o: Outcome,
  ms: number,
) {
  await sql`
    insert into webhook_deliveries (action, file_id, method, target, outcome, status, error, ms)
    values (${e.action}, ${e.fileId}, ${method}, ${target}, ${o.outcome}, ${o.status ?? null},
      ${o.error ?? null}, ${ms})`;
}

/** Calls one receiver; the outcome is logged and recorded in `webhook_deliveries`. */
async function deliverOne(
  db: Db,
  e: DeliveryEvent,
  wh: Webhook,
  vars: Record<string, unknown>,
): Promise<Outcome> {
  // No method chosen (absent, or null/'' from an untouched dropdown): GET, the method the Webhooks page
  // shows for such a row (its dropdown displays its first option; docs/webhooks.md).
  const method = String(wh.type || 'GET').toUpperCase();
  const url = buildUrl(String(wh.url ?? ''), vars);
  const target = targetOf(url);
  const started = Date.now();
  let o: Outcome;
  try {
    const headerObject = jsonObject(wh.header, 'header') ?? {};
    const headers = Object.fromEntries(Object.entries(headerObject).map(([k, v]) => [k, String(v)]));
    const template = jsonObject(wh.body, 'body') ?? {};
    const unknown = unknownVariables([wh.url, ...Object.values(template)], vars);
    if (unknown.length) log('warn', 'webhook names variables that do not exist', { target, unknown });
    const hasBody = method !== 'GET' && method !== 'HEAD';
    if (hasBody && !Object.keys(headers).some((k) => k.toLowerCase() === 'content-type')) {
      headers['content-type'] = 'text/plain;charset=UTF-8';
    }
    const body = hasBody ? JSON.stringify(buildBody(template, vars)) : undefined;
    const status = await send({ method, url, headers, body });
    o =
      status >= 200 && status < 300
        ? { outcome: 'sent', status }
        : { outcome: 'failed', status, error: `HTTP ${status}` };
  } catch (err) {
    o = { outcome: err instanceof RefusedTarget ? 'refused' : 'failed', error: (err as Error).message };
  }
  const ms = Date.now() - started;
  const fields = { action: e.action, fileId: e.fileId, method, target, ...o, ms };
  if (o.outcome === 'sent') log('info', 'webhook delivered', fields);
  else log('warn', `webhook ${o.outcome}`, fields);
  await record(db.sql, e, method, target, o, ms).catch((err) =>
    log('warn', 'webhook outcome not recorded', { error: (err as Error).message }),
  );
  return o;
}

/** The delivery function's work: reads the file as it is now, then calls every receiver in parallel. */
export async function deliverWebhooks(db: Db, e: DeliveryEvent): Promise<Outcome[]> {
  const { file, geojson } = await getFiles(
    db.sql,
    { id: 0, username: 'webhooks', admin: true },
    {
      ids: [e.fileId],
      published: false,
    },
  );
  const vars = fileVariables(file[0] as unknown as Record<string, unknown>, geojson);
  await db.sql`delete from webhook_deliveries where created_at < now() - interval '30 days'`;
  return Promise.all(e.webhooks.map((wh) => deliverOne(db, e, wh, vars)));
}
