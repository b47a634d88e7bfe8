import { layerParam, MAX_INTEGER, MAX_PATH_LENGTH } from '#lib/geodatasets/read/readParams.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { uploadAnswer } from '#lib/http/openapi/shapes/geodatasets.ts';
import { respond } from '#lib/http/response.ts';
import { createUpload } from '#lib/uploads/upload.ts';

const prop = { type: 'string', maxLength: MAX_PATH_LENGTH } as const;

/** Checked further by `createUpload` exactly as recreate/append check them (lib/uploads/upload.ts). */
const body = {
  type: 'object',
  properties: {
    name: layerParam,
    action: { type: 'string', enum: ['recreate', 'append'] },
    startProp: prop,
    endProp: prop,
    groupIdProp: prop,
    featureIdProp: prop,
    filename: { type: 'string', maxLength: 1024 },
    /** The file's length in bytes (at most `MAX_UPLOAD_BYTES`: 413 above). */
    size: { type: ['integer', 'string'], minimum: 0, maximum: MAX_INTEGER, maxLength: 16 },
  },
} as const;

/**
 * POST /api/geodatasets/upload {name, action?, startProp?, endProp?, groupIdProp?, featureIdProp?,
 * filename?, size?} — 201 with an upload job (`awaiting_upload`) and a presigned S3 PUT for the file.
 */
export const handler = endpoint(
  { auth: 'admin', schema: { body }, responses: { 201: { schema: uploadAnswer } } },
  async ({ body, db }) => respond(201, { status: 'success', body: await createUpload(db, body) }),
);
