import { requireDataset } from '#lib/geodatasets/catalog.ts';
import { layerParam } from '#lib/geodatasets/read/readParams.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { jobStarted } from '#lib/http/openapi/shapes/geodatasets.ts';
import { respond } from '#lib/http/response.ts';
import { startJob } from '#lib/jobs/jobs.ts';

const path = { type: 'object', properties: { name: layerParam }, required: ['name'] } as const;

/** POST /api/geodatasets/recompute_stats/:name — 202 with a job that recomputes field_stats. */
export const handler = endpoint(
  {
    auth: 'admin',
    body: 'raw',
    schema: { path },
    responses: { 202: { description: 'A job recomputing field_stats.', schema: jobStarted } },
  },
  async ({ path, db }) => {
    const ds = await requireDataset(db.sql, path.name);
    const job = await startJob(db, 'jobRecomputeStats', 'recompute_stats', ds.name);
    return respond(202, { status: 'success', body: { job: { id: job.id, state: job.state } } });
  },
);
