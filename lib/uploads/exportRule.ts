import type { Geodataset } from '#lib/geodatasets/catalog.ts';
import type { JobView } from '#lib/jobs/jobs.ts';
import { setting } from '#lib/settings.ts';
import { exportReadKey } from './exportKey.ts';

/**
 * When a whole-layer GeoJSON read is handed to an export job, and what the job is (docs/geodatasets-read.md,
 * "Export jobs"). No SDK here: the read function checks the rule on every whole read; lib/uploads/export.ts
 * (S3, Lambda) loads only when a read is handed over.
 */

/** The job kind of an export (GET /api/geodatasets/jobs/:id shows it). */
export const EXPORT_KIND = 'export_geodataset';
/** The async function that runs an export (serverless/geodatasets-read.yml). */
export const EXPORT_FUNCTION = 'jobExportGeodataset';

/**
 * Layers with more features than this (`EXPORT_ABOVE_FEATURES`, default 1,000,000) are read whole by an
 * export job: at the measured rates such a read may not end within the 29 s of one request.
 */
export function exportAboveFeatures(): number {
  return setting('EXPORT_ABOVE_FEATURES');
}

/**
 * How long a finished export is reused (`EXPORT_REUSE_SECONDS`, default 12 hours): under the bucket's
 * one-day expiry of `responses/` (serverless.yml), so a reused export's object still exists.
 */
export function exportReuseSeconds(): number {
  return setting('EXPORT_REUSE_SECONDS');
}

/**
 * How long a failed export answers for its read (`EXPORT_RETRY_SECONDS`, default 60; 0: never): within
 * it the same read answers 503 with the failure and `Retry-After`, so a read that keeps failing starts at
 * most one job a minute, however often it is sent.
 */
export function exportRetrySeconds(): number {
  return setting('EXPORT_RETRY_SECONDS');
}

/** What an export job reads: the layer at one version, with the request's declared parameters. */
export interface ExportInput {
  /** The reuse key: layer id, version and table, and the read as parsed (exportKey.ts). */
  key: string;
  layer: string;
  /** The layer's catalog id: a removed layer's exports answer 410, even once a layer of its name exists. */
  layerId?: number;
  version: number;
  table: string;
  params: Record<string, unknown>;
  /** Who asked first (`user:<id>` or `address:<ip>`), for the per-caller cap; not part of the key. */
  caller?: string;
}

/** A finished export: its object, size in bytes and number of features. */
export interface ExportResult {
  key: string;
  bytes: number;
  features: number;
}

/**
 * The input of the export of `ds` (its current version) read with `params` (its CQL2 filter parsed:
 * `cql2`), asked by `caller`.
 */
export function exportInput(
  ds: Geodataset,
  params: Record<string, unknown>,
  options: { cql2?: { ast: unknown; crs: string }; caller?: string } = {},
): ExportInput {
  const { cql2, caller } = options;
  const clean = Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined && v !== null));
  const key = exportReadKey(ds, clean, cql2);
  return { key, layer: ds.name, layerId: ds.id, version: ds.version, table: ds.table, params: clean, caller };
}

/** The `{key, bytes, features}` of a finished export job, or undefined. */
export function exportResultOf(job: JobView): ExportResult | undefined {
  if (job.kind !== EXPORT_KIND || job.state !== 'succeeded') return undefined;
  const r = job.result as Partial<ExportResult> | undefined;
  if (!r || typeof r.key !== 'string') return undefined;
  return { key: r.key, bytes: Number(r.bytes), features: Number(r.features) };
}
