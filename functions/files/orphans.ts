import { toOrphanAnswer } from '#lib/draw/fileAnswer.ts';
import { listOrphans } from '#lib/draw/owners.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { orphansAnswer } from '#lib/http/openapi/shapes/draw.ts';

/** An administrator lists the draw files owned by no account (docs/draw.md, "Ownership"). */
const options = { auth: 'admin', body: 'json-or-form', responses: ok(orphansAnswer) } as const;

export const handler = endpoint(options, async ({ db }) => {
  const files = await listOrphans(db.sql);
  return {
    status: 'success',
    message: 'Successfully got files with no owner.',
    body: files.map(toOrphanAnswer),
  };
});
