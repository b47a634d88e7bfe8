import { readLatestLayers } from '#lib/configure/reads.ts';
import type { Queryable } from '#lib/db/index.ts';
import { listDatasets } from './catalog.ts';
import { type FieldStatsEntry, toFieldStats } from './fieldStats.ts';

export interface Occurrence {
  name: string;
  uuid: string | null;
  /** Dot-separated names of the headers holding the layer ('' at the top level), as `placement.path`. */
  path: string;
}

export interface Entry {
  name: string;
  updated: string;
  properties_type: 'json' | 'jsonb';
  field_stats?: Record<string, FieldStatsEntry>;
  filename: string | null;
  num_features: number;
  start_prop: string | null;
  end_prop: string | null;
  group_id_prop: string | null;
  feature_id_prop: string | null;
  /** The established server's names of the four props above (its configure app reads these). */
  start_time_field: string | null;
  end_time_field: string | null;
  group_id_field: string | null;
  feature_id_field: string | null;
  occurrences: Record<string, Occurrence[]>;
}

const PREFIX = 'geodatasets:';

/** Walks a layer tree (headers' `sublayers`, any depth) and calls `found` for each `geodatasets:` url. */
export function walkLayers(
  layers: unknown,
  path: string[],
  found: (dataset: string, o: Occurrence) => void,
  depth = 0,
): void {
  if (!Array.isArray(layers) || depth > 64) return;
  for (const l of layers) {
    if (!l || typeof l !== 'object') continue;
    const layer = l as Record<string, unknown>;
    if (typeof layer.url === 'string' && layer.url.startsWith(PREFIX)) {
      found(layer.url.slice(PREFIX.length), {
        name: String(layer.name ?? ''),
        uuid: typeof layer.uuid === 'string' ? layer.uuid : null,
        path: path.join('.'),
      });
    }
    if (Array.isArray(layer.sublayers)) {
      walkLayers(layer.sublayers, [...path, String(layer.name ?? '')], found, depth + 1);
    }
  }
}

/** dataset name → mission → layers using it, over the latest configuration of every mission. */
export async function readOccurrences(sql: Queryable): Promise<Map<string, Record<string, Occurrence[]>>> {
  const rows = await readLatestLayers(sql);
  const out = new Map<string, Record<string, Occurrence[]>>();
  for (const r of rows) {
    const mission = r.mission;
    walkLayers(r.layers, [], (dataset, o) => {
      const byMission = out.get(dataset) ?? {};
      out.set(dataset, byMission);
      byMission[mission] ??= [];
      byMission[mission].push(o);
    });
  }
  return out;
}

/** POST/GET /entries: every geodataset, sorted by name (code point), with the extras of docs/geodatasets-read.md. */
export async function listEntries(sql: Queryable): Promise<Entry[]> {
  const [datasets, occurrences] = await Promise.all([listDatasets(sql), readOccurrences(sql)]);
  return datasets.map((d) => {
    const e: Entry = {
      name: d.name,
      updated: d.updatedAt,
      properties_type: d.propertiesType,
      filename: d.filename,
      num_features: d.numFeatures,
      start_prop: d.startProp,
      end_prop: d.endProp,
      group_id_prop: d.groupIdProp,
      feature_id_prop: d.featureIdProp,
      start_time_field: d.startProp,
      end_time_field: d.endProp,
      group_id_field: d.groupIdProp,
      feature_id_field: d.featureIdProp,
      occurrences: occurrences.get(d.name) ?? {},
    };
    if (d.fieldStats) e.field_stats = toFieldStats(d.fieldStats, d.numFeatures);
    return e;
  });
}
