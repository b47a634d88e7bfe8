import { missionOnly } from '#lib/configure/requests.ts';
import { listVersions } from '#lib/configure/store.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { versionsAnswer } from '#lib/http/openapi/shapes/configure.ts';

/** GET /api/configure/versions: every stored version of a mission, for administrators. */
export const handler = endpoint(
  { auth: 'admin', schema: { query: missionOnly }, responses: ok(versionsAnswer) },
  async ({ query, db }) => {
    const { mission } = query;
    return { status: 'success', mission, versions: await listVersions(db.sql, mission) };
  },
);
