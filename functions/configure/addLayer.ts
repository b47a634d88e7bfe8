import { addLayer } from '#lib/configure/operations.ts';
import { endpoint } from '#lib/http/endpoint.ts';

const body = {
  type: 'object',
  required: ['mission', 'layer'],
  properties: { mission: { type: 'string' }, forceClientUpdate: { type: 'boolean' } },
} as const;

/** Adds one layer or an ordered list of layers at `placement`. */
export const handler = endpoint({ auth: 'admin', schema: { body } }, ({ body, db }) => addLayer(db, body));
