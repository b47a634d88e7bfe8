import { endpoint } from '#lib/http/endpoint.ts';
import { fieldsOf } from '#lib/http/fields.ts';
import { getProfile, parseProfileInput } from '#lib/rasters/profile.ts';
import { srsLookup } from '#lib/rasters/srs.ts';
import { missionStorage } from '#lib/storage/storage.ts';

/** POST /api/utils/getprofile {path, lat1, lon1, lat2, lon2, steps, axes?} (JSON or form). */
export const handler = endpoint({ auth: 'viewer', body: 'raw' }, async ({ rawBody, headers, db }) => {
  const input = parseProfileInput(fieldsOf(rawBody, headers));
  const { body } = await getProfile(missionStorage(), srsLookup(db.sql), input);
  return { status: 'success', body };
});
