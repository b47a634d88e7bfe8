import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { jobAnswer } from '#lib/http/openapi/shapes/geodatasets.ts';
import { getJob } from '#lib/jobs/jobs.ts';

const path = {
  type: 'object',
  properties: { id: { type: 'string', format: 'uuid' } },
  required: ['id'],
} as const;

/** GET /api/geodatasets/jobs/:id — the state of an async job. */
export const handler = endpoint(
  { auth: 'admin', schema: { path }, responses: ok(jobAnswer) },
  async ({ path, db }) => ({
    status: 'success',
    body: { job: await getJob(db.sql, path.id) },
  }),
);
