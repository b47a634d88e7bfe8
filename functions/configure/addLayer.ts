import { addLayer } from '#lib/configure/operations.ts';
import { addLayerBody } from '#lib/configure/requests.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { changeAnswer } from '#lib/http/openapi/shapes/configure.ts';

/** Adds one layer or an ordered list of layers at `placement`. */
export const handler = endpoint(
  { auth: 'admin', schema: { body: addLayerBody }, responses: ok(changeAnswer) },
  ({ body, db }) => addLayer(db, body),
);
