import { updateLayerOf } from '#lib/configure/operations.ts';
import { updateLayerBody } from '#lib/configure/requests.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { changeAnswer } from '#lib/http/openapi/shapes/configure.ts';

/** Deep merges a partial layer over an existing one; renames and moves it. */
export const handler = endpoint(
  { auth: 'admin', schema: { body: updateLayerBody }, responses: ok(changeAnswer) },
  ({ body, db }) => updateLayerOf(db, body),
);
