import { destroy } from '#lib/configure/operations.ts';
import { endpoint } from '#lib/http/endpoint.ts';

const body = {
  type: 'object',
  required: ['mission'],
  properties: { mission: { type: 'string' } },
} as const;

/** Removes a mission with all its versions (discouraged). */
export const handler = endpoint({ auth: 'admin', schema: { body } }, ({ body, db }) => destroy(db, body));
