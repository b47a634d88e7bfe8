import type { Queryable } from '#lib/db/index.ts';
import { setting } from '#lib/settings.ts';
import { EXPORT_KIND, type ExportInput } from './exportRule.ts';

/**
 * How many exports may run at once (docs/geodatasets-read.md, "Export jobs", "Caps"): a read that would
 * start one more is refused, with `Retry-After`, and starts nothing. Reads that reuse a running or finished
 * export are never refused: only a new export counts against the caps. Queued and running jobs count; a
 * job whose function died counts until the reaper fails it (docs/uploads.md#stuck-jobs).
 */
export interface ExportCaps {
  /** Exports one caller (a user, or an address when anonymous) may have running (`EXPORT_MAX_PER_CALLER`, 2). */
  perCaller: number;
  /** Exports of one layer running at once, whoever asked (`EXPORT_MAX_PER_LAYER`, 2). */
  perLayer: number;
  /** Exports running at once in all (`EXPORT_MAX_RUNNING`, 4). */
  running: number;
}

export function exportCaps(): ExportCaps {
  return {
    perCaller: setting('EXPORT_MAX_PER_CALLER'),
    perLayer: setting('EXPORT_MAX_PER_LAYER'),
    running: setting('EXPORT_MAX_RUNNING'),
  };
}

/** Seconds a refused read is told to wait (`Retry-After`): about the time an export of 1,000,000 points takes. */
export const EXPORT_BUSY_RETRY_SECONDS = 30;

/**
 * A refused export: 429 when the caller's own exports fill its cap (the caller can wait for them), 503 when
 * the layer's or the service's do (the service is busy, whoever asks).
 */
export interface ExportRefusal {
  status: 429 | 503;
  message: string;
  retryAfter: number;
}

/**
 * Whether one more export of `input` fits the caps; the refusal when it does not. Call it under the lock
 * that serializes new exports (lib/uploads/export.ts), so that racing reads cannot all pass the count.
 */
export async function exportRefusal(
  sql: Queryable,
  input: ExportInput,
  caps: ExportCaps = exportCaps(),
): Promise<ExportRefusal | undefined> {
  const [n] = await sql`
    select count(*)::int as running,
      count(*) filter (where name = ${input.layer})::int as of_layer,
      count(*) filter (where input->>'caller' = ${input.caller ?? ''})::int as of_caller
    from jobs
    where kind = ${EXPORT_KIND} and state in ('queued', 'running')`;
  const wait = EXPORT_BUSY_RETRY_SECONDS;
  const refuse = (status: 429 | 503, why: string): ExportRefusal => ({
    status,
    retryAfter: wait,
    message: `${why}; try again in ${wait} s, or read the layer in pages with 'limit' and 'after'.`,
  });
  if (input.caller && n.of_caller >= caps.perCaller) {
    return refuse(429, `You have ${n.of_caller} exports running, the most one caller may run at once`);
  }
  if (n.of_layer >= caps.perLayer) {
    return refuse(
      503,
      `${n.of_layer} exports of layer '${input.layer}' are running, the most one layer may have at once`,
    );
  }
  if (n.running >= caps.running) {
    return refuse(503, `${n.running} exports are running, the most the service runs at once`);
  }
  return undefined;
}
