import { removeLayer } from '#lib/configure/operations.ts';
import { removeLayerBody } from '#lib/configure/requests.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { changeAnswer } from '#lib/http/openapi/shapes/configure.ts';

/** Removes layers and their sublayers. */
export const handler = endpoint(
  { auth: 'admin', schema: { body: removeLayerBody }, responses: ok(changeAnswer) },
  ({ body, db }) => removeLayer(db, body),
);
