import { endpoint } from '#lib/http/endpoint.ts';
import { profileAnswer, unreadableRaster } from '#lib/http/openapi/shapes/misc.ts';
import { getProfile, parseProfileInput } from '#lib/rasters/profile.ts';
import { srsLookup } from '#lib/rasters/srs.ts';
import { missionStorage } from '#lib/storage/storage.ts';

/** JSON or MMGIS's jQuery form post: an object of fields (form values arrive as strings). */
const body = { type: 'object' } as const;
const fields = (b: unknown) => b as Record<string, unknown>;

/** POST /api/utils/getprofile {path, lat1, lon1, lat2, lon2, steps, axes?} (JSON or form). */
export const handler = endpoint(
  {
    auth: 'viewer',
    body: 'json-or-form',
    schema: { body },
    responses: { 200: { schema: profileAnswer }, 422: unreadableRaster },
  },
  async ({ body, db }) => {
    const input = parseProfileInput(fields(body));
    const profile = await getProfile(missionStorage(), srsLookup(db.sql), input);
    return { status: 'success', body: profile.body };
  },
);
