import type { Db } from '#lib/db/index.ts';
import { pushToViewers } from '#lib/events/push.ts';
import { log } from '#lib/log.ts';
import { readLatestLayers } from './reads.ts';
import { isPlainObject } from './storedConfig.ts';
import { GEODATASET_PREFIX, MAX_DEPTH } from './validate.ts';

/** The uuids of the layers (any depth) whose url is `geodatasets:<dataset>`. */
export function layersUsing(layers: unknown, dataset: string, depth = 0): string[] {
  if (!Array.isArray(layers) || depth > MAX_DEPTH) return [];
  return layers.flatMap((layer) => {
    if (!isPlainObject(layer)) return [];
    const own =
      layer.url === `${GEODATASET_PREFIX}${dataset}` && typeof layer.uuid === 'string' ? [layer.uuid] : [];
    return [...own, ...layersUsing(layer.sublayers, dataset, depth + 1)];
  });
}

/**
 * After a write that changed geodataset `dataset`'s features (recreate, append, an upload's ingest,
 * remove): every mission with layers on it gets the MMGIS client's `updateLayer` message for those
 * layers with `forceClientUpdate: true`, so open maps reload them (docs/live-updates.md). No `route`:
 * the configuration did not change. A failed push is logged, never fails the write.
 */
export async function announceDataChange(db: Db, dataset: string): Promise<void> {
  try {
    const missions = await readLatestLayers(db.sql);
    await Promise.all(
      missions.map(async ({ mission, layers }) => {
        const uuids = layersUsing(layers, dataset);
        if (!uuids.length) return;
        await pushToViewers(db.sql, {
          info: { type: 'updateLayer', layerName: uuids, mission },
          body: { mission },
          forceClientUpdate: true,
        });
      }),
    );
  } catch (e) {
    log('warn', 'live update of a geodataset change failed', {
      dataset,
      error: e instanceof Error ? e.message : String(e),
    });
  }
}
