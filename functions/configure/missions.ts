import { listMissions } from '#lib/configure/missions.ts';
import { endpoint } from '#lib/http/endpoint.ts';

export const handler = endpoint({ auth: 'public' }, async ({ db }) => ({
  status: 'success',
  missions: await listMissions(db.sql),
}));
