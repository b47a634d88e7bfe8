import { endpoint } from '#lib/http/endpoint.ts';
import { fieldsOf } from '#lib/http/fields.ts';
import { getBands } from '#lib/rasters/bands.ts';
import { srsLookup } from '#lib/rasters/srs.ts';
import { missionStorage } from '#lib/storage/storage.ts';

/** POST /api/utils/getbands {path, x, y, xyorll, bands} (JSON or form) → [[band, value], ...]. */
export const handler = endpoint({ auth: 'viewer', body: 'raw' }, async ({ rawBody, headers, db }) => ({
  status: 'success',
  body: await getBands(missionStorage(), srsLookup(db.sql), fieldsOf(rawBody, headers)),
}));
