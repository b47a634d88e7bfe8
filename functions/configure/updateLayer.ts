import { updateLayerOf } from '#lib/configure/operations.ts';
import {
  forceClientUpdate,
  layerObject,
  layerUuid,
  MAX_LAYER_TEXT,
  mission,
  placement,
} from '#lib/configure/requests.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { jsonField, jsonOr } from '#lib/http/jsonField.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { changeAnswer } from '#lib/http/openapi/shapes/configure.ts';

/** `layer`: the partial layer merged over the one named by `layerUUID`. */
const body = {
  type: 'object',
  required: ['mission', 'layerUUID', 'layer'],
  properties: {
    mission,
    layerUUID: layerUuid,
    layer: jsonOr(layerObject, MAX_LAYER_TEXT),
    placement,
    forceClientUpdate,
  },
} as const;

/** Deep merges a partial layer over an existing one; renames and moves it. */
export const handler = endpoint(
  { auth: 'admin', schema: { body }, responses: ok(changeAnswer) },
  ({ body, db }) => updateLayerOf(db, { ...body, layer: jsonField(body.layer, 'layer', layerObject) }),
);
