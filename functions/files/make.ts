import { caller } from '#lib/draw/access.ts';
import { fileChanges } from '#lib/draw/fileInput.ts';
import { FILE_INTENTS, makeFile, PUBLICITY } from '#lib/draw/files.ts';
import { asBody, oneOf, optJson, optString } from '#lib/draw/input.ts';
import { badRequest } from '#lib/errors.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { madeFile } from '#lib/http/openapi/shapes/draw.ts';
import { triggerWebhooks } from '#lib/webhooks/trigger.ts';

const options = { auth: 'user', body: 'json-or-form', responses: ok(madeFile) } as const;

export const handler = endpoint(options, async ({ body, principal, db }) => {
  const b = asBody(body);
  const fileName = optString(b, 'file_name', 500);
  if (!fileName?.trim()) throw badRequest("Missing required body field 'file_name'.");
  const input = {
    ...fileChanges(b),
    file_name: fileName,
    intent: oneOf(b, 'intent', FILE_INTENTS) ?? null,
    publicity_type:
      b.publicity_type === undefined ? undefined : (oneOf(b, 'publicity_type', PUBLICITY) ?? null),
    // `geojson=` (jQuery's null) is no GeoJSON, as for `template` (lib/draw/fileInput.ts).
    geojson: b.geojson === '' ? undefined : optJson(b, 'geojson'),
  };
  const id = await db.transaction((tx) => makeFile(tx, caller(principal), input));
  await triggerWebhooks(db, 'DrawFileAdd', id);
  return { status: 'success', message: 'Successfully made a new file.', body: { file_id: id } };
});
