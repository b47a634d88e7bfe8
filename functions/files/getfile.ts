import { caller } from '#lib/draw/access.ts';
import { toFileAnswer } from '#lib/draw/fileAnswer.ts';
import { getFiles, publishedLayer } from '#lib/draw/read.ts';
import { epochMsOrNow, fileIds, fileIntent, idList, idsText, LIMITS } from '#lib/draw/schemas.ts';
import { badRequest } from '#lib/errors.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { jsonField, jsonOr } from '#lib/http/jsonField.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { getFileAnswer } from '#lib/http/openapi/shapes/draw.ts';

const body = {
  type: 'object',
  properties: {
    /** The files to read: one id, a list (at most 100, no repeats) or the JSON text of either. */
    id: jsonOr(fileIds, idsText(LIMITS.fileIds)),
    time: epochMsOrNow,
    published: { type: 'boolean', default: false },
    /** The last published layer instead (optionally one `intent`'s features); `id` is not read. */
    quick_published: { type: 'boolean', default: false },
    intent: fileIntent,
  },
} as const;

const options = { auth: 'user', schema: { body }, responses: ok(getFileAnswer) } as const;

export const handler = endpoint(options, async ({ body, principal, db }) => {
  if (body.quick_published) {
    const layer = await publishedLayer(db.sql, body.intent || undefined);
    return { status: 'success', message: 'Published layer.', body: layer };
  }
  const list = idList(jsonField(body.id, 'id', fileIds));
  if (!list.length) throw badRequest("Missing required body field 'id'.");
  const time = body.time ?? undefined; // empty: now, the latest of each file
  const result = await getFiles(db.sql, caller(principal), { ...body, time, ids: list });
  return {
    status: 'success',
    message: 'Successfully got file.',
    body: { ...result, file: result.file.map(toFileAnswer) },
  };
});
