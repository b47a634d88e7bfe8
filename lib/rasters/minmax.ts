import GeoTIFF, { type GeoTIFFImage, type Pool } from 'geotiff';
import { badRequest, HttpError } from '#lib/errors.ts';
import { toNumber } from '#lib/numbers.ts';
import { missionKey } from '#lib/storage/paths.ts';
import type { MissionStorage } from '#lib/storage/storage.ts';
import { budgetedDecoders, checkBlocksLocated, checkDecodePlan, decodeLimits } from './budget.ts';
import { parseBands } from './inputs.ts';
import { StorageSource } from './source.ts';

/** One band's extremes; `null` when no pixel holds a value (all nodata or NaN). */
export interface BandMinMax {
  band: number;
  min: number | null;
  max: number | null;
  /** `statistics`: the file's stored GDAL statistics; `pixels`: every pixel; `overview`: an overview's. */
  source: 'statistics' | 'pixels' | 'overview';
}

/**
 * The fewest pixels an overview must have to stand for the band when computing, GDAL's own rule for
 * approximate statistics (`GetStatistics(approx_ok=TRUE)`: the smallest overview with at least 2,500).
 */
const APPROX_SAMPLES = 2500;

type GeoTiffSource = Parameters<typeof GeoTIFF.fromSource>[0];

/**
 * getminmax: each listed band's minimum and maximum (docs/utils.md). From the GDAL statistics stored in
 * the file (`STATISTICS_MINIMUM`/`STATISTICS_MAXIMUM` of its GDAL_METADATA tag) when present, else
 * computed from the pixels, nodata and NaN left out: of the smallest overview with at least 2,500 pixels
 * (as GDAL's approximate statistics), or of the full image when it has none; every tile of that image is
 * decoded within the decoding budget (budget.ts), so a large raster without overviews is a 422.
 */
export async function getMinMax(storage: MissionStorage, f: Record<string, unknown>): Promise<BandMinMax[]> {
  const key = missionKey(f.path);
  if (f.bands === undefined) throw badRequest("Missing required field 'bands'.");
  const images = await openImages(storage, key);
  const bands = parseBands(f.bands, images[0].getSamplesPerPixel());
  const found = new Map<number, BandMinMax>();
  const missing: number[] = [];
  for (const band of new Set(bands)) {
    const stored = await storedStatistics(images[0], band - 1);
    if (stored) found.set(band, { band, ...stored, source: 'statistics' });
    else missing.push(band);
  }
  if (missing.length > 0) {
    const image = sampleImage(images);
    const computed = await computeMinMax(
      image,
      key,
      missing.map((b) => b - 1),
    );
    const source = image === images[0] ? 'pixels' : 'overview';
    for (const [i, band] of missing.entries()) found.set(band, { band, ...computed[i], source });
  }
  return bands.map((b) => found.get(b)!);
}

/** The full-resolution image and its overviews (reduced-resolution images with the same bands; masks left out). */
async function openImages(storage: MissionStorage, key: string): Promise<GeoTIFFImage[]> {
  try {
    const tiff = await GeoTIFF.fromSource(new StorageSource(storage, key) as unknown as GeoTiffSource);
    const first = await tiff.getImage(0);
    const images = [first];
    const count = await tiff.getImageCount();
    for (let i = 1; i < count; i++) {
      const image = await tiff.getImage(i);
      const subfile = Number(image.fileDirectory.getValue('NewSubfileType') ?? 0);
      if (
        (subfile & 1) === 1 &&
        (subfile & 4) === 0 &&
        image.getSamplesPerPixel() === first.getSamplesPerPixel()
      )
        images.push(image);
    }
    return images;
  } catch (e) {
    if (e instanceof HttpError) throw e;
    throw new HttpError(422, `'${key}' is not a readable GeoTIFF (${(e as Error).message}).`);
  }
}

/** The band's stored GDAL statistics (0-based `sample`), or null when the file holds none. */
async function storedStatistics(
  image: GeoTIFFImage,
  sample: number,
): Promise<{ min: number; max: number } | null> {
  const metadata = (await image.getGDALMetadata(sample).catch(() => null)) as Record<string, unknown> | null;
  if (!metadata) return null;
  const min = toNumber(metadata.STATISTICS_MINIMUM);
  const max = toNumber(metadata.STATISTICS_MAXIMUM);
  return Number.isFinite(min) && Number.isFinite(max) && min <= max ? { min, max } : null;
}

/** The image the computed extremes come from: the smallest with at least APPROX_SAMPLES pixels. */
function sampleImage(images: GeoTIFFImage[]): GeoTIFFImage {
  const pixels = (i: GeoTIFFImage) => i.getWidth() * i.getHeight();
  const enough = images.filter((i) => pixels(i) >= APPROX_SAMPLES);
  if (enough.length === 0) return images[0];
  return enough.reduce((a, b) => (pixels(b) < pixels(a) ? b : a));
}

/** Min and max of each sample over every tile (or strip) of `image`, within the decoding budget. */
async function computeMinMax(
  image: GeoTIFFImage,
  key: string,
  samples: number[],
): Promise<Array<{ min: number | null; max: number | null }>> {
  const [width, height] = [image.getWidth(), image.getHeight()];
  const [tw, th] = [image.getTileWidth(), image.getTileHeight()];
  const blocks: Array<[number, number]> = [];
  for (let by = 0; by * th < height; by++) for (let bx = 0; bx * tw < width; bx++) blocks.push([bx, by]);
  const limits = decodeLimits();
  await checkDecodePlan(image, key, blocks.length, samples, limits);
  await checkBlocksLocated(image, key, blocks, samples);
  const pool = budgetedDecoders(key, limits) as unknown as Pool;
  const nodata = image.getGDALNoData();
  const nodata32 = nodata === null ? null : Math.fround(nodata);
  const out = samples.map(() => ({ min: null as number | null, max: null as number | null }));
  for (const [bx, by] of blocks) {
    const window = [bx * tw, by * th, Math.min(width, (bx + 1) * tw), Math.min(height, (by + 1) * th)];
    const data = (await image.readRasters({
      window,
      samples,
      interleave: false,
      pool,
    })) as unknown as ArrayLike<number>[];
    samples.forEach((_, s) => {
      const values = data[s];
      let { min, max } = out[s];
      for (let i = 0; i < values.length; i++) {
        const v = Number(values[i]);
        if (Number.isNaN(v) || (nodata !== null && (v === nodata || v === nodata32))) continue;
        if (min === null || v < min) min = v;
        if (max === null || v > max) max = v;
      }
      out[s] = { min, max };
    });
  }
  return out;
}
