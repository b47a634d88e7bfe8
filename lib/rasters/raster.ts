import GeoTIFF, { type GeoTIFFImage, type Pool } from 'geotiff';
import { HttpError } from '#lib/errors.ts';
import type { MissionStorage } from '#lib/storage/storage.ts';
import { budgetedDecoders, checkBlocksLocated, checkDecodePlan, decodeLimits } from './budget.ts';
import { type CrsLookup, type ToModel, toModelTransform } from './crs.ts';
import { StorageSource } from './source.ts';

export interface Raster {
  /** The file's key below the mission data root (named in refusals). */
  key: string;
  image: GeoTIFFImage;
  source: StorageSource;
  width: number;
  height: number;
  bands: number;
  /** lon/lat → fractional pixel column/row (the pixel under the point is their floor). */
  toPixel(lon: number, lat: number): [number, number];
}

type GeoTiffSource = Parameters<typeof GeoTIFF.fromSource>[0];

/**
 * Opens the GeoTIFF at `key` of the mission storage by ranges (header and directory only) and builds its
 * lon/lat → pixel transform: model coordinates from the CRS (see crs.ts), then the geotransform of
 * ModelTiepoint/ModelPixelScale or ModelTransformation (PixelIsPoint shifted by half a pixel, as GDAL).
 */
export async function openRaster(storage: MissionStorage, key: string, lookup: CrsLookup): Promise<Raster> {
  const source = new StorageSource(storage, key);
  let image: GeoTIFFImage;
  try {
    const tiff = await GeoTIFF.fromSource(source as unknown as GeoTiffSource);
    image = await tiff.getImage(0);
  } catch (e) {
    if (e instanceof HttpError) throw e;
    throw new HttpError(422, `'${key}' is not a readable GeoTIFF (${(e as Error).message}).`);
  }
  let origin: number[];
  let res: number[];
  try {
    origin = image.getOrigin();
    res = image.getResolution();
  } catch {
    throw new HttpError(422, `'${key}' has no georeferencing (ModelTiepoint/ModelPixelScale).`);
  }
  const keys = image.getGeoKeys();
  const toModel: ToModel = await toModelTransform(keys, lookup);
  const isPoint = keys?.GTRasterTypeGeoKey === 2;
  const ox = isPoint ? origin[0] - res[0] / 2 : origin[0];
  const oy = isPoint ? origin[1] - res[1] / 2 : origin[1];
  return {
    key,
    image,
    source,
    width: image.getWidth(),
    height: image.getHeight(),
    bands: image.getSamplesPerPixel(),
    toPixel(lon, lat) {
      const [x, y] = toModel(lon, lat);
      return [(x - ox) / res[0], (y - oy) / res[1]];
    },
  };
}

/**
 * Reads `samples` (0-based bands) at each integer pixel; `null` outside the raster, at nodata or NaN.
 * Pixels are grouped by the tile (or strip) holding them and each block is read and decoded once, within
 * the decoding budget (budget.ts): the plan is checked before any tile is read, each tile's table entry
 * before it is read, and deflate output while it is decoded.
 */
export async function readPixels(
  r: Raster,
  pixels: Array<[number, number] | null>,
  samples: number[],
): Promise<Array<Array<number | null>>> {
  const tw = r.image.getTileWidth();
  const th = r.image.getTileHeight();
  const nodata = r.image.getGDALNoData();
  const nodata32 = nodata === null ? null : Math.fround(nodata);
  const groups = new Map<string, number[]>();
  const out: Array<Array<number | null>> = pixels.map(() => samples.map(() => null));
  pixels.forEach((p, i) => {
    if (!p) return;
    const [c, row] = p;
    if (c < 0 || row < 0 || c >= r.width || row >= r.height) return;
    const key = `${Math.floor(c / tw)},${Math.floor(row / th)}`;
    const g = groups.get(key);
    if (g) g.push(i);
    else groups.set(key, [i]);
  });
  const blocks = [...groups.keys()].map((k) => k.split(',').map(Number) as [number, number]);
  const limits = decodeLimits();
  await checkDecodePlan(r.image, r.key, blocks.length, samples, limits);
  await checkBlocksLocated(r.image, r.key, blocks, samples);
  const pool = budgetedDecoders(r.key, limits) as unknown as Pool;
  for (const [key, idxs] of groups) {
    const [bx, by] = key.split(',').map(Number);
    const x0 = bx * tw;
    const y0 = by * th;
    const x1 = Math.min(r.width, x0 + tw);
    const y1 = Math.min(r.height, y0 + th);
    const data = (await r.image.readRasters({
      window: [x0, y0, x1, y1],
      samples,
      interleave: false,
      pool,
    })) as unknown as ArrayLike<number>[];
    const w = x1 - x0;
    for (const i of idxs) {
      const [c, row] = pixels[i]!;
      const at = (row - y0) * w + (c - x0);
      out[i] = samples.map((_, s) => {
        const v = Number(data[s][at]);
        if (Number.isNaN(v) || (nodata !== null && (v === nodata || v === nodata32))) return null;
        return v;
      });
    }
  }
  return out;
}

/** The pixel under a fractional position (its floor), or null when not finite. */
export function pixelAt(col: number, row: number): [number, number] | null {
  if (!Number.isFinite(col) || !Number.isFinite(row)) return null;
  return [Math.floor(col), Math.floor(row)];
}
