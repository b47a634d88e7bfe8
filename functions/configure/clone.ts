import { cloneMission } from '#lib/configure/operations.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { cloneAnswer } from '#lib/http/openapi/shapes/configure.ts';
import { respond } from '#lib/http/response.ts';

const body = {
  type: 'object',
  required: ['existingMission', 'cloneMission'],
  properties: { existingMission: { type: 'string' }, cloneMission: { type: 'string' } },
} as const;

/** Copies a mission's latest configuration to a new mission (discouraged). */
export const handler = endpoint(
  { auth: 'admin', schema: { body }, responses: { 201: { schema: cloneAnswer } } },
  async ({ body, db }) => respond(201, await cloneMission(db, body)),
);
