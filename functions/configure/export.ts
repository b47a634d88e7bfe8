import { exportConfigs, parseMissionList } from '#lib/configure/reads.ts';
import { endpoint } from '#lib/http/endpoint.ts';

const query = {
  type: 'object',
  properties: { mission: { type: 'string', maxLength: 10000 } },
} as const;

export const handler = endpoint({ auth: 'viewer', schema: { query } }, async ({ query, principal, db }) => ({
  status: 'success',
  missions: await exportConfigs(db.sql, principal, parseMissionList(query.mission)),
}));
