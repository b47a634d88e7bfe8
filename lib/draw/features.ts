import { randomUUID } from 'node:crypto';
import type { Queryable } from '#lib/db/index.ts';
import { badRequest, notFound } from '#lib/errors.ts';
import type { Caller } from './access.ts';
import { lockFile } from './access.ts';
import { type Geometry, isPolygonal } from './geometry.ts';
import { Action, currentIds, type Snapshot, snapshotExactly, writeSnapshot } from './history.ts';
import { clipOver, clipUnder, merge, split } from './ops.ts';

/**
 * Feature writes of the draw endpoints (docs/draw.md). Each runs inside the caller's transaction, after
 * locking the file row: the new feature rows and the new snapshot land together or not at all.
 */
export interface AddInput {
  geometry: Geometry;
  properties?: Record<string, unknown>;
  intent?: string | null;
  order?: 'min' | 'max';
  clip?: 'over' | 'under';
  toHistory: boolean;
  bulkIds: number[];
}

export interface Written {
  id: number | null;
  uuid: string | null;
  intent: string | null;
  /** Every feature row this write created. */
  ids: number[];
}

function cleanProps(p: Record<string, unknown> | undefined): Record<string, unknown> {
  const { _: _meta, ...rest } = p ?? {};
  return rest;
}

export function inSnapshot(ids: number[], current: number[], field: string, fileId: number): void {
  const have = new Set(current);
  const missing = ids.filter((id) => !have.has(id));
  if (missing.length) {
    throw notFound(
      `Body field '${field}': feature ${missing.join(', ')} is not in file ${fileId}'s current version.`,
    );
  }
}

export async function addFeature(q: Queryable, c: Caller, fileId: number, a: AddInput): Promise<Written> {
  if (a.clip && !isPolygonal(a.geometry)) {
    throw badRequest(`Body field 'clip' applies to polygons only: 'geometry' is a ${a.geometry.type}.`);
  }
  await lockFile(q, fileId, c, 'features');
  const current = await currentIds(q, fileId);
  const [{ level }] = await q<{ level: number }[]>`
    select coalesce(${a.order === 'min' ? q`min(level) - 1` : q`max(level) + 1`}, 0) as level
    from draw_features where id = any(${current}::bigint[])`;
  const properties = { ...cleanProps(a.properties), uuid: randomUUID() };
  const intent = a.intent ?? null;
  const geojson = JSON.stringify(a.geometry);

  if (a.clip === 'under') {
    const pieces = await clipUnder(q, fileId, current, { level, intent, properties, geojson });
    if (pieces.length)
      await writeSnapshot(q, fileId, Action.addUnder, [...current, ...pieces.map((p) => p.id)], c.id);
    return { id: pieces[0]?.id ?? null, uuid: pieces[0]?.uuid ?? null, intent, ids: pieces.map((p) => p.id) };
  }

  const [row] = await q<{ id: number; uuid: string }[]>`
    insert into draw_features (file_id, level, intent, properties, geom)
    values (${fileId}, ${level}, ${intent}, ${JSON.stringify(properties)}::text::jsonb,
      ST_SetSRID(ST_GeomFromGeoJSON(${geojson}), 4326))
    returning id, properties->>'uuid' as uuid`;
  const written = { id: row.id, uuid: row.uuid, intent, ids: [row.id] };
  if (!a.toHistory) return written;

  // Features added earlier with to_history=false join the snapshot with this one (ids of this file only).
  const pending = a.bulkIds.length
    ? (
        await q<{ id: number }[]>`
          select id from draw_features
          where file_id = ${fileId} and id = any(${a.bulkIds}::bigint[]) and not (id = any(${current}::bigint[]))
          order by id`
      ).map((r) => r.id)
    : [];
  let next = [...current, ...pending, row.id];
  let action: number = Action.add;
  if (a.clip === 'over') {
    const clipped = await clipOver(q, current, row.id);
    next = swap(next, clipped.rows, clipped.removed);
    written.ids.push(...clipped.rows.map((r) => r.id));
    action = Action.addOver;
  }
  await writeSnapshot(q, fileId, action, next, c.id);
  return written;
}

/** Replaces each superseded id in `history` by the rows that replace it, in place; drops ids replaced by nothing. */
export function swap(
  history: number[],
  rows: { id: number; replaces: number | null }[],
  removed: number[] = [],
): number[] {
  const by = new Map<number, number[]>();
  for (const r of rows) if (r.replaces !== null) by.set(r.replaces, [...(by.get(r.replaces) ?? []), r.id]);
  const gone = new Set(removed);
  return history.flatMap((id) => (gone.has(id) ? [] : (by.get(id) ?? [id])));
}

export interface EditInput {
  featureId: number;
  geometry?: Geometry;
  properties?: Record<string, unknown>;
  intent?: string | null;
  reassignUUID: boolean;
}

export async function editFeature(q: Queryable, c: Caller, fileId: number, e: EditInput): Promise<Written> {
  await lockFile(q, fileId, c, 'features');
  const current = await currentIds(q, fileId);
  inSnapshot([e.featureId], current, 'feature_id', fileId);
  const props = e.properties === undefined ? null : JSON.stringify(cleanProps(e.properties));
  const geojson = e.geometry === undefined ? null : JSON.stringify(e.geometry);
  const [row] = await q<{ id: number; uuid: string; intent: string | null }[]>`
    insert into draw_features (file_id, level, intent, properties, geom, replaces)
    select o.file_id, o.level, ${e.intent === undefined ? q`o.intent` : e.intent},
      jsonb_set(p.props, '{uuid}', to_jsonb(coalesce(
        case when ${e.reassignUUID} then gen_random_uuid()::text end,
        p.props->>'uuid', o.properties->>'uuid', gen_random_uuid()::text))),
      ${geojson === null ? q`o.geom` : q`ST_SetSRID(ST_GeomFromGeoJSON(${geojson}), 4326)`},
      o.id
    from draw_features o, lateral (select coalesce(${props}::text::jsonb, o.properties) as props) p
    where o.id = ${e.featureId}
    returning id, properties->>'uuid' as uuid, intent`;
  await writeSnapshot(q, fileId, Action.edit, swap(current, [{ id: row.id, replaces: e.featureId }]), c.id);
  return { ...row, ids: [row.id] };
}

export async function removeFeature(q: Queryable, c: Caller, fileId: number, id: number): Promise<Snapshot> {
  await lockFile(q, fileId, c, 'features');
  const current = await currentIds(q, fileId);
  inSnapshot([id], current, 'id', fileId);
  return writeSnapshot(q, fileId, Action.delete, swap(current, [], [id]), c.id);
}

/** Makes the snapshot at exactly `undoTime` the file's content again, as a new snapshot (action 3). */
export async function undoTo(q: Queryable, c: Caller, fileId: number, undoTime: number): Promise<Snapshot> {
  await lockFile(q, fileId, c, 'features');
  const target = await snapshotExactly(q, fileId, undoTime);
  return writeSnapshot(q, fileId, Action.undo, target.history, c.id);
}

/** Merges `ids` (and `propId`) into new features carrying `propId`'s properties (action 6). */
export async function mergeFeatures(
  q: Queryable,
  c: Caller,
  fileId: number,
  propId: number,
  ids: number[],
): Promise<number[]> {
  await lockFile(q, fileId, c, 'features');
  const current = await currentIds(q, fileId);
  inSnapshot([propId], current, 'prop_id', fileId);
  const all = [...new Set([...ids, propId])];
  inSnapshot(all, current, 'ids', fileId);
  if (all.length < 2) throw badRequest("Body field 'ids' must name at least two features to merge.");
  const rows = await merge(q, all, propId);
  const gone = all.filter((id) => id !== propId);
  const next = swap(current, rows, gone);
  if (!rows.length) next.splice(next.indexOf(propId), 1);
  await writeSnapshot(q, fileId, Action.merge, next, c.id);
  return rows.map((r) => r.id);
}

/** Replaces each listed feature the blade cuts by its pieces (action 8); the others stay. */
export async function splitFeatures(
  q: Queryable,
  c: Caller,
  fileId: number,
  ids: number[],
  blade: Geometry,
): Promise<number[]> {
  await lockFile(q, fileId, c, 'features');
  const current = await currentIds(q, fileId);
  inSnapshot(ids, current, 'ids', fileId);
  const rows = await split(q, [...new Set(ids)], JSON.stringify(blade));
  if (rows.length) await writeSnapshot(q, fileId, Action.split, swap(current, rows), c.id);
  return rows.map((r) => r.id);
}
