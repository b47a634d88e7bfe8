import { destroy } from '#lib/configure/operations.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { destroyAnswer } from '#lib/http/openapi/shapes/configure.ts';

const body = {
  type: 'object',
  required: ['mission'],
  properties: { mission: { type: 'string' } },
} as const;

/** Removes a mission with all its versions (discouraged). */
export const handler = endpoint(
  { auth: 'admin', schema: { body }, responses: { 200: { schema: destroyAnswer } } },
  ({ body, db }) => destroy(db, body),
);
