import { addLayer } from '#lib/configure/operations.ts';
import {
  forceClientUpdate,
  layerOrLayers,
  MAX_LAYER_TEXT,
  mission,
  placement,
} from '#lib/configure/requests.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { jsonField, jsonOr } from '#lib/http/jsonField.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { changeAnswer } from '#lib/http/openapi/shapes/configure.ts';

const body = {
  type: 'object',
  required: ['mission', 'layer'],
  properties: { mission, layer: jsonOr(layerOrLayers, MAX_LAYER_TEXT * 16), placement, forceClientUpdate },
} as const;

/** Adds one layer or an ordered list of layers at `placement`. */
export const handler = endpoint(
  { auth: 'admin', schema: { body }, responses: ok(changeAnswer) },
  ({ body, db }) => addLayer(db, { ...body, layer: jsonField(body.layer, 'layer', layerOrLayers) }),
);
