import { removeLayer } from '#lib/configure/operations.ts';
import { endpoint } from '#lib/http/endpoint.ts';

const body = {
  type: 'object',
  required: ['mission', 'layerUUID'],
  properties: { mission: { type: 'string' }, forceClientUpdate: { type: 'boolean' } },
} as const;

/** Removes layers and their sublayers. */
export const handler = endpoint({ auth: 'admin', schema: { body } }, ({ body, db }) => removeLayer(db, body));
