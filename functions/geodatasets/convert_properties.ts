import { requireDataset } from '#lib/geodatasets/catalog.ts';
import { layerParam } from '#lib/geodatasets/read/readParams.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { jobStarted } from '#lib/http/openapi/shapes/geodatasets.ts';
import { respond } from '#lib/http/response.ts';
import { createJob, startJob } from '#lib/jobs/jobs.ts';

const path = { type: 'object', properties: { name: layerParam }, required: ['name'] } as const;

/**
 * POST /api/geodatasets/convert_properties/:name — 202 with a job converting json properties to jsonb;
 * a dataset already jsonb answers 200 with a job already succeeded (docs/contract.md#4-geodatasets-api).
 */
export const handler = endpoint(
  {
    auth: 'admin',
    body: 'raw',
    schema: { path },
    responses: {
      200: { description: 'Already jsonb: a job that has succeeded.', schema: jobStarted },
      202: { description: 'A job converting the properties.', schema: jobStarted },
    },
  },
  async ({ path, db }) => {
    const ds = await requireDataset(db.sql, path.name);
    if (ds.propertiesType === 'jsonb') {
      const done = await createJob(db.sql, 'convert_properties', ds.name, {}, 'succeeded');
      return { status: 'success', body: { job: { id: done.id, state: done.state } } };
    }
    const job = await startJob(db, 'jobConvertProperties', 'convert_properties', ds.name);
    return respond(202, { status: 'success', body: { job: { id: job.id, state: job.state } } });
  },
);
