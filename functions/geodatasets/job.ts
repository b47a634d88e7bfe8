import { responseUrlSeconds } from '#lib/answers/largeResponse.ts';
import { assertAllowed } from '#lib/auth/permissions.ts';
import { HttpError } from '#lib/errors.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { jobAnswer, layerGone } from '#lib/http/openapi/shapes/geodatasets.ts';
import { getJob, type JobView } from '#lib/jobs/jobs.ts';
import { EXPORT_KIND, exportResultOf } from '#lib/uploads/exportRule.ts';
import { exportLayerPresent } from '#lib/uploads/exportSweep.ts';

const path = {
  type: 'object',
  properties: { id: { type: 'string', format: 'uuid' } },
  required: ['id'],
} as const;

/** A finished export's result with a fresh presigned GET of its object (`url`, valid until `expiresAt`). */
async function withExportUrl(job: JobView): Promise<JobView> {
  const done = exportResultOf(job);
  if (!done) return job;
  const { presignGet } = await import('#lib/uploads/s3.ts');
  const seconds = responseUrlSeconds();
  const url = await presignGet(done.key, seconds);
  const expiresAt = new Date(Date.now() + seconds * 1000).toISOString();
  return { ...job, result: { ...done, url, expiresAt } };
}

/**
 * GET /api/geodatasets/jobs/:id — the state of an async job. Administrators see every job; an export job
 * (docs/geodatasets-read.md, "Export jobs") is seen by whoever may read layers (the caller of the read
 * that started it), and once done its result links the GeoJSON. An export of a removed layer is 410
 * (its row and object are deleted with the layer; this also holds in between).
 */
export const handler = endpoint(
  { auth: 'viewer', schema: { path }, responses: { 200: { schema: jobAnswer }, 410: layerGone } },
  async ({ path, db, principal }) => {
    const job = await getJob(db.sql, path.id);
    if (job.kind !== EXPORT_KIND) assertAllowed('admin', principal);
    else if (!(await exportLayerPresent(db, job.id))) {
      throw new HttpError(410, `Geodataset '${job.name}' was removed; its export ${job.id} is gone.`);
    }
    return { status: 'success', body: { job: await withExportUrl(job) } };
  },
);
