import { updateInitialView } from '#lib/configure/operations.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { changeAnswer } from '#lib/http/openapi/shapes/configure.ts';

const body = {
  type: 'object',
  required: ['mission'],
  properties: { mission: { type: 'string' }, forceClientUpdate: { type: 'boolean' } },
} as const;

/** Sets the map's initial center and zoom (`msv.view`). */
export const handler = endpoint(
  { auth: 'admin', schema: { body }, responses: { 200: { schema: changeAnswer } } },
  ({ body, db }) => updateInitialView(db, body),
);
