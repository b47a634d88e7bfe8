import { badRequest } from '#lib/errors.ts';

/**
 * The coordinate reference systems of the OGC API (Part 2, docs/ogc.md "CRS"). Features are stored in
 * EPSG:4326 with longitude first, which is CRS84: the storage CRS and the default. EPSG:4326 as the
 * EPSG defines it has latitude first, so its coordinates are answered (and its bbox read) lat/lon.
 */
export interface Crs {
  uri: string;
  /** The PostGIS SRID of the answer's coordinates. */
  srid: 4326 | 3857;
  /** Latitude (northing) first. */
  latFirst: boolean;
}

export const CRS84: Crs = {
  uri: 'http://www.opengis.net/def/crs/OGC/1.3/CRS84',
  srid: 4326,
  latFirst: false,
};
export const EPSG4326: Crs = {
  uri: 'http://www.opengis.net/def/crs/EPSG/0/4326',
  srid: 4326,
  latFirst: true,
};
export const EPSG3857: Crs = {
  uri: 'http://www.opengis.net/def/crs/EPSG/0/3857',
  srid: 3857,
  latFirst: false,
};

export const SUPPORTED_CRS: readonly Crs[] = [CRS84, EPSG4326, EPSG3857];
export const STORAGE_CRS = CRS84;

/** Short spellings accepted besides the URIs (`[EPSG:4326]` is the safe CURIE form of Part 2). */
const ALIASES: Record<string, Crs> = {
  'OGC:CRS84': CRS84,
  CRS84: CRS84,
  'EPSG:4326': EPSG4326,
  'EPSG:3857': EPSG3857,
};

/** The CRS named by a `crs`/`bbox-crs` value (default CRS84), or 400 naming the parameter. */
export function parseCrs(value: string | undefined, param: string): Crs {
  if (value === undefined || value === '') return CRS84;
  const v = value.trim().replace(/^\[(.*)\]$/, '$1');
  const found =
    SUPPORTED_CRS.find((c) => c.uri === v || c.uri.replace(/^http:/, 'https:') === v) ??
    ALIASES[v.toUpperCase()];
  if (!found) {
    throw badRequest(
      `'${param}' ${JSON.stringify(value).slice(0, 120)} is not supported: use one of ${SUPPORTED_CRS.map((c) => c.uri).join(', ')}.`,
    );
  }
  return found;
}

const R = 6378137;

/** A Web Mercator point → lon/lat degrees (latitude kept within ±90). */
function fromMercator(x: number, y: number): [number, number] {
  const lon = ((x / R) * 180) / Math.PI;
  const lat = ((2 * Math.atan(Math.exp(y / R)) - Math.PI / 2) * 180) / Math.PI;
  return [lon, lat];
}

export interface LonLatBox {
  minx: number;
  miny: number;
  maxx: number;
  maxy: number;
}

/**
 * A `bbox` parameter (4 or 6 comma-separated numbers; with 6 the third and sixth are heights and ignored)
 * in `crs`, as a lon/lat box for the read filters. 400 naming `bbox` for anything else and for a box whose
 * lower corner is above its upper one. A west edge east of the east edge is the box across the
 * antimeridian (Part 1, 7.15.3): answered as given, `minx > maxx` (`antimeridianHalves` splits it).
 */
export function parseBbox(text: string, crs: Crs): LonLatBox {
  const parts = text.split(',');
  const nums = parts.map((p) => (p.trim() === '' ? Number.NaN : Number(p)));
  if ((nums.length !== 4 && nums.length !== 6) || nums.some((n) => !Number.isFinite(n))) {
    throw badRequest(
      `'bbox' must be 4 or 6 comma-separated numbers (got ${JSON.stringify(text).slice(0, 80)}).`,
    );
  }
  const [a, b, c, d] = nums.length === 6 ? [nums[0], nums[1], nums[3], nums[4]] : nums;
  // Axis order of the CRS: EPSG:4326 is lat,lon.
  let [minx, miny, maxx, maxy] = crs.latFirst ? [b, a, d, c] : [a, b, c, d];
  if (miny > maxy) throw badRequest(`'bbox' has its lower corner north of its upper corner.`);
  if (crs.srid === 3857) {
    [minx, miny] = fromMercator(minx, miny);
    [maxx, maxy] = fromMercator(maxx, maxy);
  } else if (miny < -90 || maxy > 90) {
    throw badRequest(`'bbox' latitudes must be within -90 and 90.`);
  }
  return { minx, miny, maxx, maxy };
}

/**
 * A box across the antimeridian (`minx > maxx`) as its two halves, west of it and east of it, as a GeoJSON
 * MultiPolygon (lon/lat); undefined for any other box.
 */
export function antimeridianHalves(b: LonLatBox): string | undefined {
  if (b.minx <= b.maxx) return undefined;
  const ring = (w: number, e: number) => [
    [
      [w, b.miny],
      [e, b.miny],
      [e, b.maxy],
      [w, b.maxy],
      [w, b.miny],
    ],
  ];
  return JSON.stringify({ type: 'MultiPolygon', coordinates: [ring(b.minx, 180), ring(-180, b.maxx)] });
}

/** The `Content-Crs` header value of an answer in `crs`. */
export function contentCrs(crs: Crs): string {
  return `<${crs.uri}>`;
}
