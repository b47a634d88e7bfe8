import { exportConfigs, parseMissionList } from '#lib/configure/reads.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { exportAnswer } from '#lib/http/openapi/shapes/configure.ts';

const query = {
  type: 'object',
  properties: {
    // Comma-separated mission names (each checked by parseMissionList).
    mission: { type: 'string', maxLength: 10000, pattern: '^[A-Za-z0-9 _,-]*$' },
  },
} as const;

export const handler = endpoint(
  { auth: 'viewer', schema: { query }, responses: ok(exportAnswer) },
  async ({ query, principal, db }) => ({
    status: 'success',
    missions: await exportConfigs(db.sql, principal, parseMissionList(query.mission)),
  }),
);
