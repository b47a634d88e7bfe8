import { assertMissionName } from '#lib/auth/missionName.ts';
import { listVersions } from '#lib/configure/store.ts';
import { endpoint } from '#lib/http/endpoint.ts';

const query = {
  type: 'object',
  required: ['mission'],
  properties: { mission: { type: 'string' } },
} as const;

export const handler = endpoint({ auth: 'admin', schema: { query } }, async ({ query, db }) => {
  const mission = assertMissionName(query.mission);
  return { status: 'success', mission, versions: await listVersions(db.sql, mission) };
});
