import { removeLayer } from '#lib/configure/operations.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { changeAnswer } from '#lib/http/openapi/shapes/configure.ts';

const body = {
  type: 'object',
  required: ['mission', 'layerUUID'],
  properties: { mission: { type: 'string' }, forceClientUpdate: { type: 'boolean' } },
} as const;

/** Removes layers and their sublayers. */
export const handler = endpoint(
  { auth: 'admin', schema: { body }, responses: { 200: { schema: changeAnswer } } },
  ({ body, db }) => removeLayer(db, body),
);
