import type { Queryable } from '#lib/db/index.ts';
import { listDatasets } from './store.ts';

export interface Occurrence {
  name: string;
  uuid: string | null;
  /** Dot-separated names of the headers holding the layer ('' at the top level). */
  path: string;
}

export interface DatasetEntry {
  name: string;
  updated: string;
  rows: number;
  columns: string[];
  occurrences: Record<string, Occurrence[]>;
}

function walk(layers: unknown, path: string[], found: (dataset: string, o: Occurrence) => void, depth = 0) {
  if (!Array.isArray(layers) || depth > 64) return;
  for (const l of layers) {
    if (!l || typeof l !== 'object') continue;
    const layer = l as Record<string, any>;
    const links = layer.variables?.datasetLinks;
    if (Array.isArray(links)) {
      const o = { name: String(layer.name ?? ''), uuid: typeof layer.uuid === 'string' ? layer.uuid : null };
      const names = new Set<string>();
      for (const d of links) if (d && typeof d.dataset === 'string') names.add(d.dataset);
      for (const n of names) found(n, { ...o, path: path.join('.') });
    }
    if (Array.isArray(layer.sublayers))
      walk(layer.sublayers, [...path, String(layer.name ?? '')], found, depth + 1);
  }
}

/** For each dataset that a mission's current configuration links, the missions and layers linking it. */
export async function datasetOccurrences(sql: Queryable): Promise<Map<string, Record<string, Occurrence[]>>> {
  const configs =
    await sql`select distinct on (mission) mission, config -> 'layers' as layers from configs order by mission, version desc`;
  const byDataset = new Map<string, Record<string, Occurrence[]>>();
  for (const c of configs) {
    walk(c.layers, [], (dataset, o) => {
      const m = byDataset.get(dataset) ?? {};
      byDataset.set(dataset, m);
      m[c.mission as string] ??= [];
      m[c.mission as string].push(o);
    });
  }
  return byDataset;
}

/** Every dataset with its size and the layers that link to it (`variables.datasetLinks[].dataset`). */
export async function listDatasetEntries(sql: Queryable): Promise<DatasetEntry[]> {
  const [datasets, byDataset] = await Promise.all([listDatasets(sql), datasetOccurrences(sql)]);
  return datasets.map((d) => ({
    name: d.name,
    updated: d.updated,
    rows: d.rows,
    columns: d.columns,
    occurrences: byDataset.get(d.name) ?? {},
  }));
}
