import { caller } from '#lib/draw/access.ts';
import { addFeature } from '#lib/draw/features.ts';
import { validGeometry } from '#lib/draw/geometry.ts';
import {
  featureIds,
  featureIntent,
  geometry,
  id,
  idList,
  idsText,
  LIMITS,
  properties,
} from '#lib/draw/schemas.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { jsonField, jsonOr } from '#lib/http/jsonField.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { writtenFeature } from '#lib/http/openapi/shapes/draw.ts';
import { triggerWebhooks } from '#lib/webhooks/trigger.ts';

const body = {
  type: 'object',
  required: ['file_id', 'geometry'],
  properties: {
    file_id: id,
    geometry: jsonOr(geometry, LIMITS.geometryText),
    properties: jsonOr(properties, LIMITS.propertiesText),
    intent: featureIntent,
    /** `min` (or a negative number): below every feature; else above. */
    order: {
      type: ['string', 'number'],
      maxLength: 40,
      pattern: '^(min|max|-?\\d{1,15}(\\.\\d{1,15})?)$',
      minimum: -1e15,
      maximum: 1e15,
    },
    /** `off` (MMGIS's client's "no clipping") and `''` are none. */
    clip: { enum: ['over', 'under', 'off', '', null] },
    to_history: { type: 'boolean', default: true },
    bulk_ids: jsonOr(featureIds, idsText(LIMITS.featureIds)),
  },
} as const;

const options = { auth: 'user', schema: { body }, responses: ok(writtenFeature) } as const;

export const handler = endpoint(options, async ({ body, principal, db }) => {
  const order = body.order;
  const input = {
    geometry: validGeometry(jsonField(body.geometry, 'geometry', geometry), 'geometry'),
    properties:
      jsonField<Record<string, unknown> | null>(body.properties, 'properties', properties) ?? undefined,
    intent: body.intent || null,
    order: order === 'min' || Number(order) < 0 ? ('min' as const) : ('max' as const),
    clip: body.clip === 'over' || body.clip === 'under' ? body.clip : undefined,
    toHistory: body.to_history,
    bulkIds: idList(jsonField(body.bulk_ids, 'bulk_ids', featureIds)),
  };
  const w = await db.transaction((tx) => addFeature(tx, caller(principal), body.file_id, input));
  if (input.toHistory) await triggerWebhooks(db, 'DrawFileChange', body.file_id);
  return {
    status: 'success',
    message: 'Successfully added a new feature.',
    body: { id: w.id, uuid: w.uuid, intent: w.intent, ids: w.ids },
  };
});
