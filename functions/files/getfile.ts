import { caller } from '#lib/draw/access.ts';
import { toFileAnswer } from '#lib/draw/fileAnswer.ts';
import { getFiles, publishedLayer } from '#lib/draw/read.ts';
import { epochMs, fileIds, fileIntent } from '#lib/draw/schemas.ts';
import { badRequest } from '#lib/errors.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { getFileAnswer } from '#lib/http/openapi/shapes/draw.ts';

/** The files to read: one id, a list (at most 100, no repeats) or a string of a JSON list. */
const ids = fileIds('id');

const body = {
  type: 'object',
  properties: {
    id: ids.schema,
    time: epochMs,
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
  const list = ids.read(body.id);
  if (!list.length) throw badRequest("Missing required body field 'id'.");
  const result = await getFiles(db.sql, caller(principal), { ...body, ids: list });
  return {
    status: 'success',
    message: 'Successfully got file.',
    body: { ...result, file: result.file.map(toFileAnswer) },
  };
});
