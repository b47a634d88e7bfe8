import proj4 from 'proj4';
import { HttpError } from '#lib/errors.ts';

/** proj4 text for an EPSG code (PostGIS's `spatial_ref_sys`), or null when unknown. */
export type CrsLookup = (epsg: number) => Promise<string | null>;

/** Maps longitude/latitude (in the raster's own geographic system) to the raster's model coordinates. */
export type ToModel = (lon: number, lat: number) => [number, number];

type GeoKeys = Partial<Record<string, any>>;

const USER_DEFINED = 32767;

function ellipsoidOf(k: GeoKeys): string {
  const a = k.GeogSemiMajorAxisGeoKey;
  if (typeof a === 'number') {
    if (typeof k.GeogInvFlatteningGeoKey === 'number' && k.GeogInvFlatteningGeoKey > 0) {
      return `+a=${a} +rf=${k.GeogInvFlatteningGeoKey}`;
    }
    const b = typeof k.GeogSemiMinorAxisGeoKey === 'number' ? k.GeogSemiMinorAxisGeoKey : a;
    return `+a=${a} +b=${b}`;
  }
  return '+ellps=WGS84';
}

/** proj4 text for a user-defined projection (ProjectedCSTypeGeoKey 32767), for the common planetary kinds. */
function userDefined(k: GeoKeys): string {
  const ell = ellipsoidOf(k);
  const lon0 = k.ProjNatOriginLongGeoKey ?? k.ProjCenterLongGeoKey ?? k.ProjStraightVertPoleLongGeoKey ?? 0;
  const lat0 = k.ProjNatOriginLatGeoKey ?? k.ProjCenterLatGeoKey ?? 0;
  const x0 = k.ProjFalseEastingGeoKey ?? 0;
  const y0 = k.ProjFalseNorthingGeoKey ?? 0;
  const common = `+x_0=${x0} +y_0=${y0} ${ell} +units=m +no_defs`;
  switch (k.ProjCoordTransGeoKey) {
    case 17: // Equirectangular
      return `+proj=eqc +lat_ts=${k.ProjStdParallel1GeoKey ?? 0} +lat_0=${lat0} +lon_0=${lon0} ${common}`;
    case 15: // Polar stereographic
      return `+proj=stere +lat_0=${(k.ProjNatOriginLatGeoKey ?? 90) >= 0 ? 90 : -90} +lat_ts=${k.ProjNatOriginLatGeoKey ?? 90} +lon_0=${lon0} +k=${k.ProjScaleAtNatOriginGeoKey ?? 1} ${common}`;
    case 1: // Transverse Mercator
      return `+proj=tmerc +lat_0=${lat0} +lon_0=${lon0} +k=${k.ProjScaleAtNatOriginGeoKey ?? 1} ${common}`;
    case 7: // Mercator
      return `+proj=merc +lon_0=${lon0} +k=${k.ProjScaleAtNatOriginGeoKey ?? 1} ${common}`;
    default:
      throw new HttpError(
        422,
        `The raster's user-defined projection (ProjCoordTransGeoKey ${k.ProjCoordTransGeoKey}) is not supported (docs/utils.md).`,
      );
  }
}

/** The geographic system of `projText` itself (same datum/ellipsoid, so no datum shift is applied). */
function ownGeographic(projText: string): string {
  const keep = projText
    .split(/\s+/)
    .filter((t) => /^\+(datum|ellps|a|b|rf|f|R|towgs84|nadgrids|pm)=/.test(t));
  return `+proj=longlat ${keep.join(' ')} +no_defs`;
}

/**
 * The lon/lat → model transform of a raster from its GeoKeys: identity for a geographic raster; for a
 * projected one, proj4 from the raster's own geographic system (as GDAL's CloneGeogCS) to its projection,
 * with the EPSG definition from `lookup` or a user-defined projection built from the keys.
 */
export async function toModelTransform(keys: GeoKeys | null, lookup: CrsLookup): Promise<ToModel> {
  const k = keys ?? {};
  const projected = k.GTModelTypeGeoKey === 1 || k.ProjectedCSTypeGeoKey !== undefined;
  if (!projected) return (lon, lat) => [lon, lat];
  const code = k.ProjectedCSTypeGeoKey;
  let text: string | null;
  if (code === undefined || code === USER_DEFINED) text = userDefined(k);
  else {
    text = await lookup(code);
    if (!text) throw new HttpError(422, `The raster's CRS EPSG:${code} is not known to the service.`);
  }
  const converter = proj4(ownGeographic(text), text);
  return (lon, lat) => converter.forward([lon, lat]) as [number, number];
}
