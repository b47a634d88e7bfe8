import { assertMissionName } from '#lib/auth/missionName.ts';
import { listVersions } from '#lib/configure/store.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { successWith } from '#lib/http/openapi/describe.ts';

const query = {
  type: 'object',
  required: ['mission'],
  properties: { mission: { type: 'string' } },
} as const;

const versions = successWith(
  {
    mission: { type: 'string' },
    versions: {
      type: 'array',
      items: { type: 'object', required: ['version'], properties: { version: { type: 'integer' } } },
    },
  },
  ['mission', 'versions'],
);

/** GET /api/configure/versions: every stored version of a mission, for administrators. */
export const handler = endpoint(
  { auth: 'admin', schema: { query }, responses: { 200: { schema: versions } } },
  async ({ query, db }) => {
    const mission = assertMissionName(query.mission);
    return { status: 'success', mission, versions: await listVersions(db.sql, mission) };
  },
);
