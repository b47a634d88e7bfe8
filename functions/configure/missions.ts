import { listMissions } from '#lib/configure/missions.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { missionsAnswer } from '#lib/http/openapi/shapes/configure.ts';

/** GET /api/configure/missions: the names of every mission (docs/configure.md). */
export const handler = endpoint({ auth: 'public', responses: ok(missionsAnswer) }, async ({ db }) => ({
  status: 'success',
  missions: await listMissions(db.sql),
}));
