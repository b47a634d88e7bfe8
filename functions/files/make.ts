import { caller } from '#lib/draw/access.ts';
import { fileFields, fileFieldsSchema } from '#lib/draw/fileFields.ts';
import { makeFile } from '#lib/draw/files.ts';
import { fileIntent, geojsonField } from '#lib/draw/schemas.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { madeFile } from '#lib/http/openapi/shapes/draw.ts';
import { triggerWebhooks } from '#lib/webhooks/trigger.ts';

const body = {
  type: 'object',
  required: ['file_name'],
  properties: {
    ...fileFieldsSchema,
    intent: fileIntent,
    /** The file's first features; `geojson=` (jQuery's null): none. */
    geojson: geojsonField.schema,
  },
} as const;

const options = { auth: 'user', schema: { body }, responses: ok(madeFile) } as const;

export const handler = endpoint(options, async ({ body, principal, db }) => {
  const input = {
    ...fileFields(body),
    file_name: body.file_name,
    intent: body.intent || null,
    geojson: geojsonField.read(body.geojson) ?? undefined,
  };
  const id = await db.transaction((tx) => makeFile(tx, caller(principal), input));
  await triggerWebhooks(db, 'DrawFileAdd', id);
  return { status: 'success', message: 'Successfully made a new file.', body: { file_id: id } };
});
