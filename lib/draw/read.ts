import type { Queryable } from '#lib/db/index.ts';
import type { Caller, FileRow } from './access.ts';
import { assertAccess, fileColumns } from './access.ts';

/** Reading files' content (docs/draw.md): getfile at a time, published snapshots, the published layer. */
export interface FeatureCollection {
  type: 'FeatureCollection';
  features: unknown[];
}

/**
 * The features with these ids as a FeatureCollection built by the database: `properties._` carries
 * `{id, file_id, level, intent}`; sorted by level, then polygons, lines, points.
 */
export async function featuresById(q: Queryable, ids: number[]): Promise<FeatureCollection> {
  if (!ids.length) return { type: 'FeatureCollection', features: [] };
  const [r] = await q<{ features: unknown[] }[]>`
    select coalesce(jsonb_agg(jsonb_build_object(
        'type', 'Feature',
        'properties', f.properties || jsonb_build_object('_', jsonb_build_object(
          'id', f.id, 'file_id', f.file_id, 'level', f.level, 'intent', f.intent)),
        'geometry', ST_AsGeoJSON(f.geom, 15)::jsonb)
      order by f.level, 2 - least(ST_Dimension(f.geom), 2), f.id), '[]'::jsonb) as features
    from draw_features f where f.id = any(${ids}::bigint[])`;
  return { type: 'FeatureCollection', features: r.features };
}

export interface GetFileInput {
  ids: number[];
  time?: number;
  published: boolean;
}

/**
 * Each listed file's content at `time` (each file its own snapshot), after checking read access on all
 * (the first refusal refuses the request). Three queries whatever the number of ids: the file rows, each
 * file's snapshot (a lateral index probe per file), the features.
 */
export async function getFiles(
  q: Queryable,
  c: Caller,
  input: GetFileInput,
): Promise<{ file: FileRow[]; geojson: FeatureCollection }> {
  const rows = await q<FileRow[]>`
    select ${fileColumns(q)} from draw_files f where f.id = any(${input.ids}::bigint[])`;
  const byId = new Map(rows.map((f) => [Number(f.id), f]));
  const files = input.ids.map((id) => assertAccess(byId.get(id), id, c, 'read'));
  const snapshots = await q<{ history: number[] }[]>`
    select to_jsonb(s.history) as history
    from unnest(${input.ids}::bigint[]) as i (id)
    cross join lateral (
      select h.history from draw_history h
      where h.file_id = i.id
        ${input.time === undefined ? q`` : q`and h.time <= ${input.time}`}
        ${input.published ? q`and h.action_index = 4` : q``}
      order by h.time desc, h.history_id desc limit 1
    ) s`;
  return {
    file: files,
    geojson: await featuresById(
      q,
      snapshots.flatMap((s) => s.history),
    ),
  };
}

/** The last published layer (optionally one intent's features), readable by any logged-in user. */
export async function publishedLayer(q: Queryable, intent?: string): Promise<FeatureCollection> {
  const [r] = await q<{ features: unknown[] }[]>`
    select coalesce(jsonb_agg(jsonb_build_object(
        'type', 'Feature',
        'properties', f.properties || jsonb_build_object('_', jsonb_build_object(
          'id', f.feature_id, 'file_id', f.file_id, 'level', f.level, 'intent', f.intent)),
        'geometry', ST_AsGeoJSON(f.geom, 15)::jsonb)
      order by f.level, 2 - least(ST_Dimension(f.geom), 2), f.feature_id), '[]'::jsonb) as features
    from draw_published_features f
    where f.publish_id = (select max(id) from draw_publishes)
      ${intent && intent !== 'all' ? q`and f.intent = ${intent}` : q``}`;
  return { type: 'FeatureCollection', features: r.features };
}
