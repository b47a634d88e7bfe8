import { updateLayerOf } from '#lib/configure/operations.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { changeAnswer } from '#lib/http/openapi/shapes/configure.ts';

const body = {
  type: 'object',
  required: ['mission', 'layerUUID', 'layer'],
  properties: { mission: { type: 'string' }, forceClientUpdate: { type: 'boolean' } },
} as const;

/** Deep merges a partial layer over an existing one; renames and moves it. */
export const handler = endpoint(
  { auth: 'admin', schema: { body }, responses: { 200: { schema: changeAnswer } } },
  ({ body, db }) => updateLayerOf(db, body),
);
