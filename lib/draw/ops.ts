import type { Queryable } from '#lib/db/index.ts';
import { badRequest } from '#lib/errors.ts';

/**
 * The geometry operations of the draw tool, each one SQL statement run by PostGIS (docs/draw.md,
 * "Merge, split and clip"). They insert the resulting feature rows (append-only, `replaces` naming the
 * row each supersedes) and return them; the caller writes the snapshot.
 */
export interface Replacement {
  id: number;
  replaces: number | null;
}

/**
 * Clip over: every polygonal feature of `current` whose interior meets the new feature `addedId` is
 * replaced by its difference with it. Returns the new rows and the ids left with nothing.
 */
export async function clipOver(
  q: Queryable,
  current: number[],
  addedId: number,
): Promise<{ rows: Replacement[]; removed: number[] }> {
  const diffs = await q<{ old: number; empty: boolean }[]>`
    select f.id as old, ST_IsEmpty(d.g) as empty
    from draw_features f
    join draw_features n on n.id = ${addedId}
    cross join lateral (
      select ST_CollectionExtract(ST_MakeValid(ST_Difference(ST_MakeValid(f.geom), ST_MakeValid(n.geom))), 3) as g
    ) d
    where f.id = any(${current}::bigint[]) and ST_Dimension(f.geom) = 2
      and ST_Intersects(f.geom, n.geom) and not ST_Touches(f.geom, n.geom)
    order by f.id`;
  if (!diffs.length) return { rows: [], removed: [] };
  const keep = diffs.filter((d) => !d.empty).map((d) => d.old);
  const rows = keep.length
    ? await q<Replacement[]>`
        insert into draw_features (file_id, level, intent, properties, geom, replaces)
        select f.file_id, f.level, f.intent, f.properties,
          ST_CollectionExtract(ST_MakeValid(ST_Difference(ST_MakeValid(f.geom), ST_MakeValid(n.geom))), 3),
          f.id
        from draw_features f join draw_features n on n.id = ${addedId}
        where f.id = any(${keep}::bigint[])
        order by f.id
        returning id, replaces`
    : [];
  return { rows: [...rows], removed: diffs.filter((d) => d.empty).map((d) => d.old) };
}

export interface NewRow {
  level: number;
  intent: string | null;
  properties: Record<string, unknown>;
  geojson: string;
}

/**
 * Clip under: the new polygon minus the union of the current polygonal features it meets; each remaining
 * part becomes a feature (the first keeps the given uuid, the others get new ones).
 */
export async function clipUnder(
  q: Queryable,
  fileId: number,
  current: number[],
  n: NewRow,
): Promise<{ id: number; uuid: string }[]> {
  return q<{ id: number; uuid: string }[]>`
    with added as (select ST_MakeValid(ST_SetSRID(ST_GeomFromGeoJSON(${n.geojson}), 4326)) as g),
    under as (
      select ST_Union(ST_MakeValid(f.geom)) as g
      from draw_features f, added
      where f.id = any(${current}::bigint[]) and ST_Dimension(f.geom) = 2 and ST_Intersects(f.geom, added.g)
    ),
    rest as (
      select ST_CollectionExtract(
        case when under.g is null then added.g else ST_MakeValid(ST_Difference(added.g, under.g)) end, 3) as g
      from added, under
    ),
    parts as (select d.geom as g, d.path as p from rest, lateral ST_Dump(rest.g) d where not ST_IsEmpty(d.geom))
    insert into draw_features (file_id, level, intent, properties, geom)
    select ${fileId}, ${n.level}, ${n.intent},
      case when row_number() over (order by p) = 1 then ${JSON.stringify(n.properties)}::text::jsonb
        else jsonb_set(${JSON.stringify(n.properties)}::text::jsonb, '{uuid}', to_jsonb(gen_random_uuid()::text)) end,
      g
    from parts order by p
    returning id, properties->>'uuid' as uuid`;
}

/**
 * Merge: the union of the listed features (lines: `ST_LineMerge(ST_Union(...))`, polygons:
 * `ST_Union(ST_MakeValid(...))`), each part a new feature with `propId`'s level, intent and properties
 * (the first part keeps its uuid, further parts get new ones).
 */
export async function merge(q: Queryable, ids: number[], propId: number): Promise<Replacement[]> {
  const dims = await q<{ d: number }[]>`
    select distinct ST_Dimension(geom) as d from draw_features where id = any(${ids}::bigint[])`;
  if (dims.length !== 1 || dims[0].d === 0) {
    throw badRequest(
      "Body field 'ids' must list only polygons or only lines: points and mixed types do not merge.",
    );
  }
  const lines = dims[0].d === 1;
  return q<Replacement[]>`
    with merged as (
      select ${
        lines
          ? q`ST_LineMerge(ST_Union(geom))`
          : q`ST_CollectionExtract(ST_MakeValid(ST_Union(ST_MakeValid(geom))), 3)`
      } as g
      from draw_features where id = any(${ids}::bigint[])
    ),
    parts as (select d.geom as g, d.path as p from merged, lateral ST_Dump(merged.g) d where not ST_IsEmpty(d.geom))
    insert into draw_features (file_id, level, intent, properties, geom, replaces)
    select o.file_id, o.level, o.intent,
      case when row_number() over (order by parts.p) = 1 then o.properties
        else jsonb_set(o.properties, '{uuid}', to_jsonb(gen_random_uuid()::text)) end,
      parts.g, o.id
    from parts, draw_features o where o.id = ${propId}
    order by parts.p
    returning id, replaces`;
}

/**
 * Split: each listed line or polygon that the blade actually cuts (`ST_Split` gives more than one part)
 * is replaced by its parts, each with the feature's level, intent and properties (uuid included).
 * Features the blade misses or only touches stay as they are.
 */
export async function split(q: Queryable, ids: number[], blade: string): Promise<Replacement[]> {
  return q<Replacement[]>`
    with blade as (select ST_SetSRID(ST_GeomFromGeoJSON(${blade}), 4326) as b),
    cut as (
      select f.id, f.file_id, f.level, f.intent, f.properties,
        ST_Split(case when ST_Dimension(f.geom) = 2 then ST_MakeValid(f.geom) else f.geom end, blade.b) as s
      from draw_features f, blade
      where f.id = any(${ids}::bigint[]) and ST_Dimension(f.geom) > 0 and ST_Intersects(f.geom, blade.b)
    ),
    parts as (
      select cut.*, d.geom as g, d.path as p
      from cut, lateral ST_Dump(cut.s) d
      where ST_NumGeometries(cut.s) > 1 and not ST_IsEmpty(d.geom)
    )
    insert into draw_features (file_id, level, intent, properties, geom, replaces)
    select file_id, level, intent, properties, g, id from parts order by id, p
    returning id, replaces`;
}
