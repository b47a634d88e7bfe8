import { endpoint } from '#lib/http/endpoint.ts';
import { uploadAnswer } from '#lib/http/openapi/shapes/geodatasets.ts';
import { respond } from '#lib/http/response.ts';
import { createUpload } from '#lib/uploads/upload.ts';

const body = { type: 'object' } as const;

/**
 * POST /api/geodatasets/upload {name, action?, startProp?, endProp?, groupIdProp?, featureIdProp?,
 * filename?, size?} — 201 with an upload job (`awaiting_upload`) and a presigned S3 PUT for the file.
 */
export const handler = endpoint(
  { auth: 'admin', schema: { body }, responses: { 201: { schema: uploadAnswer } } },
  async ({ body, db }) =>
    respond(201, { status: 'success', body: await createUpload(db, body as Record<string, unknown>) }),
);
