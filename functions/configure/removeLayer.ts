import { removeLayer } from '#lib/configure/operations.ts';
import { forceClientUpdate, layerUuids, mission } from '#lib/configure/requests.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { changeAnswer } from '#lib/http/openapi/shapes/configure.ts';

const body = {
  type: 'object',
  required: ['mission', 'layerUUID'],
  properties: { mission, layerUUID: layerUuids, forceClientUpdate },
} as const;

/** Removes layers and their sublayers. */
export const handler = endpoint(
  { auth: 'admin', schema: { body }, responses: ok(changeAnswer) },
  // The schema's if/else (one uuid or a list) is not typed by json-schema-to-ts.
  ({ body, db }) => removeLayer(db, { ...body, layerUUID: body.layerUUID as string | string[] }),
);
