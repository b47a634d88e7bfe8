import { caller } from '#lib/draw/access.ts';
import { editFeature } from '#lib/draw/features.ts';
import { validGeometry } from '#lib/draw/geometry.ts';
import { featureIntent, geometry, id, LIMITS, properties } from '#lib/draw/schemas.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { jsonField, jsonOr } from '#lib/http/jsonField.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { writtenFeature } from '#lib/http/openapi/shapes/draw.ts';
import { triggerWebhooks } from '#lib/webhooks/trigger.ts';

const body = {
  type: 'object',
  required: ['file_id', 'feature_id'],
  properties: {
    file_id: id,
    feature_id: id,
    geometry: jsonOr(geometry, LIMITS.geometryText),
    properties: jsonOr(properties, LIMITS.propertiesText),
    /** Omitted: the feature keeps its intent; `''` or null: none. */
    intent: featureIntent,
    reassignUUID: { type: 'boolean', default: false },
  },
} as const;

const options = { auth: 'user', schema: { body }, responses: ok(writtenFeature) } as const;

export const handler = endpoint(options, async ({ body, principal, db }) => {
  const g = jsonField(body.geometry, 'geometry', geometry);
  const input = {
    featureId: body.feature_id,
    geometry: g === undefined ? undefined : validGeometry(g, 'geometry'),
    properties:
      jsonField<Record<string, unknown> | null>(body.properties, 'properties', properties) ?? undefined,
    intent: body.intent === undefined ? undefined : body.intent || null,
    reassignUUID: body.reassignUUID,
  };
  const w = await db.transaction((tx) => editFeature(tx, caller(principal), body.file_id, input));
  await triggerWebhooks(db, 'DrawFileChange', body.file_id);
  return {
    status: 'success',
    message: 'Successfully edited feature.',
    body: { id: w.id, uuid: w.uuid, intent: w.intent },
  };
});
