import { cloneMission } from '#lib/configure/operations.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { respond } from '#lib/http/response.ts';

const body = {
  type: 'object',
  required: ['existingMission', 'cloneMission'],
  properties: { existingMission: { type: 'string' }, cloneMission: { type: 'string' } },
} as const;

/** Copies a mission's latest configuration to a new mission (discouraged). */
export const handler = endpoint({ auth: 'admin', schema: { body } }, async ({ body, db }) =>
  respond(201, await cloneMission(db, body)),
);
