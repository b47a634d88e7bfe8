import { announceDataChange } from '#lib/configure/liveData.ts';
import type { Db } from '#lib/db/index.ts';
import { notFound } from '#lib/errors.ts';
import { log } from '#lib/log.ts';
import { assertDatasetName, safeTable, toGeodataset } from './catalog.ts';
import { EXTENT_CHUNK_IDS, updateExtents } from './extents.ts';
import { computeStoredStats, STATS_CHUNK_IDS, type StoredStats } from './fieldStats.ts';
import { createRankLevels, dropRankLevels } from './rank.ts';

async function locked(tx: Parameters<Parameters<Db['transaction']>[0]>[0], name: string) {
  const [row] = await tx`select * from geodatasets where name = ${assertDatasetName(name)} for update`;
  if (!row) throw notFound(`Geodataset '${name}' not found.`);
  return toGeodataset(row);
}

/** DELETE /remove/:name: the catalog row and the dataset's table, in one transaction (404 if unknown). */
export async function removeGeodataset(db: Db, name: string): Promise<void> {
  await db.transaction(async (tx) => {
    const ds = await locked(tx, name);
    await tx`delete from geodatasets where id = ${ds.id}`;
    await tx.unsafe(`drop table if exists ${safeTable(ds.table)}`);
    await dropRankLevels(tx, ds.table);
  });
  // Open maps reload the layers on it (and find them empty).
  await announceDataChange(db, name);
}

/**
 * Recomputes field_stats from the stored rows, under the catalog row lock (an append waits), in statements
 * of `chunkIds` ids each, so no statement passes the Data API's 45 s on a large layer (docs/connections.md,
 * "Long job statements on the Data API"). Data are unchanged, so `version` and `updated_at` stay.
 */
export async function recomputeStats(
  db: Db,
  name: string,
  chunkIds = STATS_CHUNK_IDS,
): Promise<{ name: string; fields: number }> {
  return db.transaction(async (tx) => {
    const ds = await locked(tx, name);
    const stats: StoredStats = await computeStoredStats(tx, ds.table, ds.propertiesType, chunkIds);
    await tx`update geodatasets set field_stats = ${tx.json(stats as any)} where id = ${ds.id}`;
    // The OGC API extents (docs/ogc.md) are recomputed with them.
    await updateExtents(tx, ds, 0, false, Math.min(chunkIds, EXTENT_CHUNK_IDS));
    // The tiles' pixel levels, when the layer has none (docs/tiles.md, "Pixel levels"; the triggers keep them after).
    await createRankLevels(tx, ds.table);
    return { name: ds.name, fields: Object.keys(stats).length };
  });
}

/** Names of the datasets without field_stats (created before the statistics were kept). */
export async function datasetsWithoutStats(db: Db): Promise<string[]> {
  const rows = await db.sql`select name from geodatasets where field_stats is null order by name collate "C"`;
  return rows.map((r) => r.name as string);
}

/**
 * The scheduled job: recomputes stats for every dataset lacking them, one transaction each. A dataset that
 * fails is logged and skipped; the others still get their stats (docs/geodatasets-read.md).
 */
export async function recomputeMissingStats(
  db: Db,
  chunkIds = STATS_CHUNK_IDS,
): Promise<{ recomputed: string[]; failed: string[] }> {
  const recomputed: string[] = [];
  const failed: string[] = [];
  for (const name of await datasetsWithoutStats(db)) {
    try {
      await recomputeStats(db, name, chunkIds);
      recomputed.push(name);
    } catch (e) {
      if ((e as { statusCode?: number }).statusCode === 404) continue; // removed meanwhile
      log('error', 'field_stats recompute failed', { name, error: (e as Error)?.message ?? String(e) });
      failed.push(name);
    }
  }
  return { recomputed, failed };
}

/**
 * Converts a json dataset's properties to jsonb (spec section 3): the table is rewritten under an
 * exclusive lock in one transaction; values are unchanged (duplicate keys inside one object keep the
 * last, as jsonb does). Already jsonb: nothing to do (`converted: false`).
 */
export async function convertProperties(db: Db, name: string): Promise<{ name: string; converted: boolean }> {
  return db.transaction(async (tx) => {
    const ds = await locked(tx, name);
    if (ds.propertiesType === 'jsonb') return { name: ds.name, converted: false };
    const t = safeTable(ds.table);
    await tx.unsafe(`alter table ${t} alter column properties drop default`);
    await tx.unsafe(`alter table ${t} alter column properties type jsonb using properties::jsonb`);
    await tx.unsafe(`alter table ${t} alter column properties set default '{}'::jsonb`);
    await tx`
      update geodatasets set properties_type = 'jsonb', version = version + 1, updated_at = now()
      where id = ${ds.id}`;
    return { name: ds.name, converted: true };
  });
}
