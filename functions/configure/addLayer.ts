import { addLayer } from '#lib/configure/operations.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { changeAnswer } from '#lib/http/openapi/shapes/configure.ts';

const body = {
  type: 'object',
  required: ['mission', 'layer'],
  properties: { mission: { type: 'string' }, forceClientUpdate: { type: 'boolean' } },
} as const;

/** Adds one layer or an ordered list of layers at `placement`. */
export const handler = endpoint(
  { auth: 'admin', schema: { body }, responses: { 200: { schema: changeAnswer } } },
  ({ body, db }) => addLayer(db, body),
);
