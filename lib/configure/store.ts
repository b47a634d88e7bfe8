import type { Db, Queryable, TxSql } from '#lib/db/index.ts';
import { HttpError, notFound } from '#lib/errors.ts';
import type { Config } from './layerTree.ts';
import { geodatasetNames, type ValidationResult, validateConfig } from './validate.ts';

/**
 * The versioned configuration store: one row per (mission, version) in `configs`; the highest version is
 * the current configuration. Stored versions are never modified or reused.
 */
export interface ConfigRecord {
  mission: string;
  version: number;
  config: Config;
  /** ISO 8601 UTC with milliseconds. */
  createdAt: string;
}

const toRecord = (r: Record<string, any>): ConfigRecord => ({
  mission: r.mission,
  version: Number(r.version),
  config: r.config,
  createdAt: new Date(r.created_at).toISOString(),
});

export async function readLatest(sql: Queryable, mission: string): Promise<ConfigRecord | undefined> {
  const [row] = await sql`
    select mission, version, config, created_at from configs
    where mission = ${mission} order by version desc limit 1`;
  return row ? toRecord(row) : undefined;
}

export async function readVersion(
  sql: Queryable,
  mission: string,
  version: number,
): Promise<ConfigRecord | undefined> {
  const [row] = await sql`
    select mission, version, config, created_at from configs
    where mission = ${mission} and version = ${version}`;
  return row ? toRecord(row) : undefined;
}

/** Versions of `mission`, ascending, each `{mission, version, createdAt}`; 404 for an unknown mission. */
export async function listVersions(
  sql: Queryable,
  mission: string,
): Promise<{ mission: string; version: number; createdAt: string }[]> {
  const rows = await sql`
    select version, created_at from configs where mission = ${mission} order by version`;
  if (!rows.length) throw notFound(`Unknown mission '${mission}'.`);
  // Each row names its mission, as the established server's rows do (its versions table sends it back).
  return rows.map((r) => ({
    mission,
    version: Number(r.version),
    createdAt: new Date(r.created_at).toISOString(),
  }));
}

/** The latest record of each mission in `missions` (all missions when undefined), sorted by name. */
export async function readLatestOfEach(sql: Queryable, missions?: string[]): Promise<ConfigRecord[]> {
  const rows = missions
    ? await sql`
        select distinct on (mission) mission, version, config, created_at from configs
        where mission = any(${missions}::text[])
        order by mission, version desc`
    : await sql`
        select distinct on (mission) mission, version, config, created_at from configs
        order by mission, version desc`;
  return rows.map(toRecord).sort((a, b) => (a.mission < b.mission ? -1 : a.mission > b.mission ? 1 : 0));
}

/** Validates `config`, looking up the geodatasets its `geodatasets:<name>` urls name. */
export async function validateWithDatasets(sql: Queryable, config: unknown): Promise<ValidationResult> {
  const names = geodatasetNames(config);
  let existing = new Set<string>();
  if (names.length) {
    const rows = await sql`select name from geodatasets where name = any(${names}::text[])`;
    existing = new Set(rows.map((r) => r.name as string));
  }
  return validateConfig(config, existing);
}

/** A 400 carrying the validation result at the top level (docs/contract.md#5-edge-cases-decided). */
export function invalidConfig(result: ValidationResult): HttpError {
  const first = result.errors[0]?.reason ?? 'invalid';
  const more = result.errors.length > 1 ? ` (and ${result.errors.length - 1} more errors)` : '';
  return new HttpError(400, `The configuration is not valid: ${first}${more}`, {
    valid: false,
    errors: result.errors,
    warnings: result.warnings,
  });
}

export interface Change<T> {
  /** The new configuration; null when nothing changes (no new version is stored). */
  config: Config | null;
  extra: T;
}

/**
 * Runs one change of `mission` under a per-mission lock: reads the latest record, lets `change` compute
 * the next config, validates it (invalid → 400, nothing stored) and stores it as version latest + 1.
 * Concurrent writers of one mission queue on the lock, so no version is produced twice and no change
 * is lost (two parallel addLayer calls give two versions, both layers in the latest).
 */
export async function commitChange<T>(
  db: Db,
  mission: string,
  change: (current: ConfigRecord | undefined, tx: TxSql) => Promise<Change<T>> | Change<T>,
): Promise<{
  version: number;
  stored: boolean;
  /** The configuration now current (the stored one, or the unchanged current one). */
  config: unknown;
  createdAt: string;
  extra: T;
  warnings: ValidationResult['warnings'];
}> {
  return db.transaction(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtext(${`configs:${mission}`}))`;
    const current = await readLatest(tx, mission);
    const { config, extra } = await change(current, tx);
    if (config === null) {
      if (!current) throw notFound(`Unknown mission '${mission}'.`);
      return {
        version: current.version,
        stored: false,
        config: current.config,
        createdAt: current.createdAt,
        extra,
        warnings: [],
      };
    }
    const result = await validateWithDatasets(tx, config);
    if (!result.valid) throw invalidConfig(result);
    const version = (current?.version ?? 0) + 1;
    const [row] = await tx`
      insert into configs (mission, version, config)
      values (${mission}, ${version}, ${tx.json(config as any)})
      returning created_at`;
    return {
      version,
      stored: true,
      config,
      createdAt: new Date(row.created_at).toISOString(),
      extra,
      warnings: result.warnings,
    };
  });
}

/** Removes every version of `mission`; 404 when it has none. */
export async function destroyMission(db: Db, mission: string): Promise<number> {
  return db.transaction(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtext(${`configs:${mission}`}))`;
    const res = await tx`delete from configs where mission = ${mission}`;
    if (res.count === 0) throw notFound(`Unknown mission '${mission}'.`);
    return res.count;
  });
}
