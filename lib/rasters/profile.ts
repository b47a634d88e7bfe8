import { bearing, destination, distance } from '@turf/turf';
import { badRequest } from '#lib/errors.ts';
import { missionKey } from '#lib/storage/paths.ts';
import type { MissionStorage } from '#lib/storage/storage.ts';
import type { CrsLookup } from './crs.ts';
import { openRaster, pixelAt, readPixels } from './raster.ts';

export const MAX_STEPS = 10000;

export interface ProfileInput {
  key: string;
  lat1: number;
  lon1: number;
  lat2: number;
  lon2: number;
  steps: number;
  xyz: boolean;
}

/** getprofile's fields (docs/utils.md), declared by its endpoint: a form's strings are coerced to these. */
export const profileFields = {
  type: 'object',
  required: ['path', 'lat1', 'lon1', 'lat2', 'lon2', 'steps'],
  properties: {
    path: { type: 'string', minLength: 1, maxLength: 1024 },
    lat1: { type: 'number', minimum: -90, maximum: 90 },
    lon1: { type: 'number', minimum: -360, maximum: 360 },
    lat2: { type: 'number', minimum: -90, maximum: 90 },
    lon2: { type: 'number', minimum: -360, maximum: 360 },
    steps: { type: 'integer', minimum: 2, maximum: MAX_STEPS },
    axes: { type: ['string', 'null'], maxLength: 16 },
  },
} as const;

/** The validated fields as a profile request: the path as a mission data key (missionKey's rules). */
export function profileInput(f: {
  path: string;
  lat1: number;
  lon1: number;
  lat2: number;
  lon2: number;
  steps: number;
  axes?: string | null;
}): ProfileInput {
  const { lat1, lon1, lat2, lon2, steps } = f;
  return { key: missionKey(f.path), lat1, lon1, lat2, lon2, steps, xyz: f.axes === 'xyz' };
}

/**
 * `steps` points evenly spaced along the great circle from point 1 to point 2, both ends included
 * (turf: the destination at i/(steps-1) of the distance along the initial bearing), as [lon, lat].
 */
export function greatCirclePoints(lon1: number, lat1: number, lon2: number, lat2: number, steps: number) {
  const from = [lon1, lat1];
  const to = [lon2, lat2];
  const d = distance(from, to, { units: 'kilometers' });
  const b = bearing(from, to);
  const pts: Array<[number, number]> = [];
  for (let i = 0; i < steps; i++) {
    if (i === 0) pts.push([lon1, lat1]);
    else if (i === steps - 1) pts.push([lon2, lat2]);
    else if (d === 0) pts.push([lon1, lat1]);
    else {
      const p = destination(from, (d * i) / (steps - 1), b, { units: 'kilometers' }).geometry.coordinates;
      pts.push([p[0], p[1]]);
    }
  }
  return pts;
}

/**
 * The profile: `[lon, lat, value]` per point from band 1 (null outside the raster or at nodata), or
 * with `xyz` the values of bands 1–3 as `[x, y, z]`. Reads only the tiles the line crosses.
 */
export async function getProfile(storage: MissionStorage, lookup: CrsLookup, input: ProfileInput) {
  const raster = await openRaster(storage, input.key, lookup);
  if (input.xyz && raster.bands < 3) {
    throw badRequest(`'axes' is 'xyz' but '${input.key}' has ${raster.bands} band(s); 3 are needed.`);
  }
  const pts = greatCirclePoints(input.lon1, input.lat1, input.lon2, input.lat2, input.steps);
  const pixels = pts.map(([lon, lat]) => pixelAt(...raster.toPixel(lon, lat)));
  const values = await readPixels(raster, pixels, input.xyz ? [0, 1, 2] : [0]);
  const body = pts.map(([lon, lat], i) => (input.xyz ? values[i] : [lon, lat, values[i][0]]));
  return { body, bytesRead: raster.source.bytesRead, reads: raster.source.reads };
}
