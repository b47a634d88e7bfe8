import { endpoint } from '#lib/http/endpoint.ts';
import { fieldsOf, jsonOrForm } from '#lib/http/formBody.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { bandsAnswer, unreadableRaster } from '#lib/http/openapi/shapes/misc.ts';
import { getBands } from '#lib/rasters/bands.ts';
import { srsLookup } from '#lib/rasters/srs.ts';
import { missionStorage } from '#lib/storage/storage.ts';

const options = {
  auth: 'viewer',
  ...jsonOrForm,
  responses: { ...ok(bandsAnswer), 422: unreadableRaster },
} as const;

/** POST /api/utils/getbands {path, x, y, xyorll, bands} (JSON or form) → [[band, value], ...]. */
export const handler = endpoint(options, async ({ body, db }) => ({
  status: 'success',
  body: await getBands(missionStorage(), srsLookup(db.sql), fieldsOf(body)),
}));
