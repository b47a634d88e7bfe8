import type { Queryable } from '#lib/db/index.ts';
import { HttpError } from '#lib/errors.ts';
import type { Caller } from './access.ts';
import { compile, featsCte } from './compile.ts';
import { Action, currentIds, writeSnapshot } from './history.ts';

/**
 * Publish (admin only; docs/draw.md): locks the master files, compiles them now, refuses with 409 and the
 * issues when there are any, else stores the hierarchy and a copy of its features as the published layer
 * and writes a publish snapshot (action 4) on every master file. Run inside one transaction.
 */
export async function publish(q: Queryable, c: Caller): Promise<{ publish_id: number; time: number }> {
  if (!c.admin) throw new HttpError(403, 'Only an administrator may publish.');
  const masters = (
    await q<{ id: number }[]>`select id from draw_files where is_master order by id for update`
  ).map((r) => r.id);
  const time = Date.now();
  // Everything up to the latest snapshot (a busy file's snapshot times can run a few ms ahead of the clock).
  const latest = Number.MAX_SAFE_INTEGER;
  const compiled = await compile(q, latest);
  if (compiled.issues.length) {
    throw new HttpError(409, `Publishing refused: compile reports ${compiled.issues.length} issue(s).`, {
      issues: compiled.issues,
    });
  }
  const [p] = await q<{ id: number }[]>`
    insert into draw_publishes (time, author_id, hierarchy)
    values (${time}, ${c.id}, ${JSON.stringify(compiled.hierarchy)}::text::jsonb) returning id`;
  await q`
    ${featsCte(q, latest)}
    insert into draw_published_features (publish_id, feature_id, file_id, level, intent, properties, geom)
    select ${p.id}, id, file_id, level, intent, properties, geom from feats`;
  for (const id of masters) await writeSnapshot(q, id, Action.publish, await currentIds(q, id), c.id);
  return { publish_id: p.id, time };
}
