import { caller } from '#lib/draw/access.ts';
import { fileFields, fileFieldsSchema } from '#lib/draw/fileFields.ts';
import { makeFile } from '#lib/draw/files.ts';
import {
  editors,
  editorsText,
  editorsTextLength,
  fileIntent,
  geojson,
  LIMITS,
  template,
} from '#lib/draw/schemas.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { jsonField, jsonOr } from '#lib/http/jsonField.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { madeFile } from '#lib/http/openapi/shapes/draw.ts';
import { triggerWebhooks } from '#lib/webhooks/trigger.ts';

const body = {
  type: 'object',
  required: ['file_name'],
  properties: {
    ...fileFieldsSchema,
    /** `template=` (jQuery's null, as the new-file dialog sends it): no template. */
    template: jsonOr(template, LIMITS.templateText),
    /** A list of usernames, the JSON text of one, or a comma-separated string. */
    public_editors: jsonOr(editors, editorsTextLength),
    intent: fileIntent,
    /** The file's first features; `geojson=` (jQuery's null): none. */
    geojson: jsonOr(geojson, LIMITS.geojsonText),
  },
} as const;

const options = { auth: 'user', schema: { body }, responses: ok(madeFile) } as const;

export const handler = endpoint(options, async ({ body, principal, db }) => {
  const input = {
    ...fileFields({
      ...body,
      template: jsonField(body.template, 'template', template),
      public_editors: jsonField<string[] | null>(editorsText(body.public_editors), 'public_editors', editors),
    }),
    file_name: body.file_name,
    intent: body.intent || null,
    geojson: jsonField(body.geojson, 'geojson', geojson) ?? undefined,
  };
  const id = await db.transaction((tx) => makeFile(tx, caller(principal), input));
  await triggerWebhooks(db, 'DrawFileAdd', id);
  return { status: 'success', message: 'Successfully made a new file.', body: { file_id: id } };
});
