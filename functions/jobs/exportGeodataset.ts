import { getDb } from '#lib/db/index.ts';
import { HttpError } from '#lib/errors.ts';
import { requireDataset } from '#lib/geodatasets/catalog.ts';
import { featureChunks } from '#lib/geodatasets/read/geojson.ts';
import { type GetInput, parseGeojsonQuery, runRead } from '#lib/geodatasets/read/query.ts';
import { asyncHandler } from '#lib/jobs/asyncHandler.ts';
import { runJob } from '#lib/jobs/jobs.ts';
import { recordExportProgress, writeExport } from '#lib/uploads/export.ts';
import type { ExportInput } from '#lib/uploads/exportRule.ts';
import { discardIfRemoved } from '#lib/uploads/exportSweep.ts';

/** Seconds between two progress updates of a running export (`processed`/`total` of its job). */
const PROGRESS_EVERY_MS = 5000;

/**
 * Async job (invoked with `{jobId}`, docs/geodatasets-read.md, "Export jobs"): writes the whole GeoJSON
 * answer of `GET /api/geodatasets/get` for the job's layer and parameters to the upload bucket, the same
 * text the request would have answered, read in short keyset statements (`featureChunks`) and streamed to
 * S3 as it is read. The layer must still be at the version the export was asked for; an object written
 * for a layer removed meanwhile is deleted (lib/uploads/exportSweep.ts).
 */
export const handler = asyncHandler('jobExportGeodataset', async (event: { jobId: string }) => {
  const db = getDb();
  const state = await runJob(db, event.jobId, async ({ input }) => {
    const job = input as unknown as ExportInput;
    const ds = await requireDataset(db.sql, job.layer);
    if (ds.version !== job.version || ds.table !== job.table) {
      throw new HttpError(409, `Geodataset '${ds.name}' changed since the export was asked for; ask again.`);
    }
    const read = parseGeojsonQuery(job.params as GetInput);
    let rows = 0;
    let reported = performance.now();
    return runRead(db.sql, ds, read, (resolved) => {
      async function* pieces(): AsyncGenerator<string> {
        yield '{"type":"FeatureCollection","features":[';
        for await (const chunk of featureChunks(db.sql, ds, resolved, read.geojson)) {
          yield rows === 0 ? chunk.text : `,${chunk.text}`;
          rows += chunk.rows;
          if (performance.now() - reported > PROGRESS_EVERY_MS) {
            reported = performance.now();
            await recordExportProgress(db.sql, event.jobId, rows, ds.numFeatures);
          }
        }
        yield ']}';
      }
      return writeExport(event.jobId, pieces(), () => rows);
    }).then(async (result) => {
      if (await discardIfRemoved(db, event.jobId)) {
        throw new HttpError(410, `Geodataset '${job.layer}' was removed while it was exported.`);
      }
      await recordExportProgress(db.sql, event.jobId, result.features, result.features);
      return result;
    });
  });
  return { jobId: event.jobId, state };
});
