import { listMissions } from '#lib/configure/missions.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { successWith } from '#lib/http/openapi/describe.ts';

const missions = successWith({ missions: { type: 'array', items: { type: 'string' } } }, ['missions']);

/** GET /api/configure/missions: the names of every mission (docs/configure.md). */
export const handler = endpoint(
  { auth: 'public', responses: { 200: { schema: missions } } },
  async ({ db }) => ({
    status: 'success',
    missions: await listMissions(db.sql),
  }),
);
