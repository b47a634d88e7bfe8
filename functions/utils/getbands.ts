import { endpoint } from '#lib/http/endpoint.ts';
import { bandsAnswer, unreadableRaster } from '#lib/http/openapi/shapes/misc.ts';
import { getBands } from '#lib/rasters/bands.ts';
import { srsLookup } from '#lib/rasters/srs.ts';
import { missionStorage } from '#lib/storage/storage.ts';

/** JSON or MMGIS's jQuery form post: an object of fields (form values arrive as strings). */
const body = { type: 'object' } as const;
const fields = (b: unknown) => b as Record<string, unknown>;

/** POST /api/utils/getbands {path, x, y, xyorll, bands} (JSON or form) → [[band, value], ...]. */
export const handler = endpoint(
  {
    auth: 'viewer',
    body: 'json-or-form',
    schema: { body },
    responses: { 200: { schema: bandsAnswer }, 422: unreadableRaster },
  },
  async ({ body, db }) => ({
    status: 'success',
    body: await getBands(missionStorage(), srsLookup(db.sql), fields(body)),
  }),
);
