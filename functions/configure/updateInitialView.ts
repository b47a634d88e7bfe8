import { updateInitialView } from '#lib/configure/operations.ts';
import { forceClientUpdate, latitude, longitude, mission, zoom } from '#lib/configure/requests.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { changeAnswer } from '#lib/http/openapi/shapes/configure.ts';

const body = {
  type: 'object',
  required: ['mission'],
  properties: { mission, latitude, longitude, zoom, forceClientUpdate },
} as const;

/** Sets the map's initial center and zoom (`msv.view`): at least one of the three. */
export const handler = endpoint(
  { auth: 'admin', schema: { body }, responses: ok(changeAnswer) },
  ({ body, db }) => updateInitialView(db, body),
);
