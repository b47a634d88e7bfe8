import { caller } from '#lib/draw/access.ts';
import { toFileAnswer } from '#lib/draw/fileAnswer.ts';
import { fileFields, fileFieldsSchema } from '#lib/draw/fileFields.ts';
import { changeFile } from '#lib/draw/files.ts';
import { editors, editorsText, editorsTextLength, id, LIMITS, template } from '#lib/draw/schemas.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { jsonField, jsonOr } from '#lib/http/jsonField.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { fileAnswer } from '#lib/http/openapi/shapes/draw.ts';
import { triggerWebhooks } from '#lib/webhooks/trigger.ts';

const body = {
  type: 'object',
  required: ['id'],
  properties: {
    id,
    ...fileFieldsSchema,
    /** `template=` (jQuery's null, as the new-file dialog sends it): no template. */
    template: jsonOr(template, LIMITS.templateText),
    /** A list of usernames, the JSON text of one, or a comma-separated string. */
    public_editors: jsonOr(editors, editorsTextLength),
  },
} as const;

const options = { auth: 'user', schema: { body }, responses: ok(fileAnswer) } as const;

export const handler = endpoint(options, async ({ body, principal, db }) => {
  const changes = fileFields({
    ...body,
    template: jsonField(body.template, 'template', template),
    public_editors: jsonField<string[] | null>(editorsText(body.public_editors), 'public_editors', editors),
  });
  const file = await db.transaction((tx) => changeFile(tx, caller(principal), body.id, changes));
  await triggerWebhooks(db, 'DrawFileChange', body.id);
  return { status: 'success', message: 'Successfully changed file.', body: toFileAnswer(file) };
});
