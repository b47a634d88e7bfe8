import { endpoint } from '#lib/http/endpoint.ts';
import { fieldsOf, jsonOrForm } from '#lib/http/formBody.ts';
import { ok } from '#lib/http/openapi/describe.ts';
import { profileAnswer, unreadableRaster } from '#lib/http/openapi/shapes/misc.ts';
import { getProfile, parseProfileInput } from '#lib/rasters/profile.ts';
import { srsLookup } from '#lib/rasters/srs.ts';
import { missionStorage } from '#lib/storage/storage.ts';

const options = {
  auth: 'viewer',
  ...jsonOrForm,
  responses: { ...ok(profileAnswer), 422: unreadableRaster },
} as const;

/** POST /api/utils/getprofile {path, lat1, lon1, lat2, lon2, steps, axes?} (JSON or form). */
export const handler = endpoint(options, async ({ body, db }) => {
  const input = parseProfileInput(fieldsOf(body));
  const profile = await getProfile(missionStorage(), srsLookup(db.sql), input);
  return { status: 'success', body: profile.body };
});
