import type { Queryable } from '#lib/db/index.ts';
import type { Caller, FileRow } from './access.ts';
import { fileFor } from './access.ts';
import { snapshotAt } from './history.ts';

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

/** Each listed file's content at `time` (each file its own snapshot), after checking read access on all. */
export async function getFiles(
  q: Queryable,
  c: Caller,
  input: GetFileInput,
): Promise<{ file: FileRow[]; geojson: FeatureCollection }> {
  const files: FileRow[] = [];
  const ids: number[] = [];
  for (const id of input.ids) {
    files.push(await fileFor(q, id, c, 'read'));
    const s = await snapshotAt(q, id, input.time, input.published);
    if (s) ids.push(...s.history);
  }
  return { file: files, geojson: await featuresById(q, ids) };
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
