import { endpoint } from '#lib/http/endpoint.ts';
import { profileText, rasterFailures } from '#lib/http/openapi/shapes/misc.ts';
import { jsonText } from '#lib/http/response.ts';
import { assertMayReadPath, withErrorFlag } from '#lib/rasters/access.ts';
import { getProfile, profileFields, profileInput } from '#lib/rasters/profile.ts';
import { srsLookup } from '#lib/rasters/srs.ts';
import { missionStorage } from '#lib/storage/storage.ts';

const options = {
  auth: 'viewer',
  schema: { body: profileFields },
  responses: { 200: profileText, ...rasterFailures },
} as const;

/**
 * POST /api/utils/getprofile {path, lat1, lon1, lat2, lon2, steps, axes?} (JSON or form) → the list
 * `[[lon, lat, value], ...]` as text, the established server's answer (its Measure tool `.replace()`s
 * the text before parsing it; docs/utils.md). Failures are the usual JSON.
 */
export const handler = endpoint(options, async ({ body, db, principal }) =>
  withErrorFlag(async () => {
    assertMayReadPath(principal, body.path);
    const profile = await getProfile(missionStorage(), srsLookup(db.sql), profileInput(body));
    return jsonText(profile.body);
  }),
);
