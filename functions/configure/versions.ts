import { assertMissionName } from '#lib/auth/missionName.ts';
import { listVersions } from '#lib/configure/store.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { versionsAnswer } from '#lib/http/openapi/shapes/configure.ts';

const query = {
  type: 'object',
  required: ['mission'],
  properties: { mission: { type: 'string' } },
} as const;

/** GET /api/configure/versions: every stored version of a mission, for administrators. */
export const handler = endpoint(
  { auth: 'admin', schema: { query }, responses: { 200: { schema: versionsAnswer } } },
  async ({ query, db }) => {
    const mission = assertMissionName(query.mission);
    return { status: 'success', mission, versions: await listVersions(db.sql, mission) };
  },
);
