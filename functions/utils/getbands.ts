import { endpoint } from '#lib/http/endpoint.ts';
import { fieldsOf, jsonOrForm } from '#lib/http/formBody.ts';
import { bandsText, unreadableRaster } from '#lib/http/openapi/shapes/misc.ts';
import { jsonText } from '#lib/http/response.ts';
import { assertMayReadPath } from '#lib/rasters/access.ts';
import { getBands } from '#lib/rasters/bands.ts';
import { srsLookup } from '#lib/rasters/srs.ts';
import { missionStorage } from '#lib/storage/storage.ts';

const options = {
  auth: 'viewer',
  ...jsonOrForm,
  responses: { 200: bandsText, 422: unreadableRaster },
} as const;

/**
 * POST /api/utils/getbands {path, x, y, xyorll, bands} (JSON or form) → `[[band, value], ...]` as text,
 * the established server's answer (its tools `.replace()` the text before parsing it; docs/utils.md).
 */
export const handler = endpoint(options, async ({ body, db, principal }) => {
  const fields = fieldsOf(body);
  assertMayReadPath(principal, fields.path);
  return jsonText(await getBands(missionStorage(), srsLookup(db.sql), fields));
});
