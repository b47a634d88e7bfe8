import { badRequest } from '#lib/errors.ts';
import { missionKey } from '#lib/storage/paths.ts';
import type { MissionStorage } from '#lib/storage/storage.ts';
import type { CrsLookup } from './crs.ts';
import { numberField, parseBands } from './inputs.ts';
import { openRaster, pixelAt, readPixels } from './raster.ts';

/**
 * getbands: the values of the listed bands at one place, `[[band, value], ...]` (null at nodata or
 * outside the raster). `xyorll: 'll'`: `x` is latitude and `y` longitude (docs/utils.md); otherwise
 * `x`/`y` are the pixel column/row.
 */
export async function getBands(storage: MissionStorage, lookup: CrsLookup, f: Record<string, unknown>) {
  const key = missionKey(f.path);
  if (f.xyorll !== undefined && typeof f.xyorll !== 'string')
    throw badRequest("'xyorll' must be 'xy' or 'll'.");
  const ll = f.xyorll === 'll';
  // 'll': x is the latitude and y the longitude, as the established server reads them and its tools send them.
  const x = numberField(f.x, 'x', ll ? -90 : -Infinity, ll ? 90 : Infinity);
  const y = numberField(f.y, 'y', ll ? -360 : -Infinity, ll ? 360 : Infinity);
  if (f.bands === undefined) throw badRequest("Missing required field 'bands'.");
  const raster = await openRaster(storage, key, lookup);
  const bands = parseBands(f.bands, raster.bands);
  const pixel = ll ? pixelAt(...raster.toPixel(y, x)) : pixelAt(x, y);
  const [values] = await readPixels(
    raster,
    [pixel],
    bands.map((b) => b - 1),
  );
  return bands.map((b, i) => [b, values[i]]);
}
