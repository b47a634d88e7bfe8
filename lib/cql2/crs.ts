import { badRequest } from '#lib/errors.ts';

/** `filter-crs` (docs/cql2.md): the CRS of the filter's geometry literals; CRS84 (lon/lat) by default. */
export type FilterCrs = 'CRS84' | 'EPSG:4326' | 'EPSG:3857';

export const FILTER_CRS_URIS: Record<FilterCrs, string> = {
  CRS84: 'http://www.opengis.net/def/crs/OGC/1.3/CRS84',
  'EPSG:4326': 'http://www.opengis.net/def/crs/EPSG/0/4326',
  'EPSG:3857': 'http://www.opengis.net/def/crs/EPSG/0/3857',
};

/** The filter CRS from its URI (or a short name such as `EPSG:3857`); 400 naming `filter-crs` otherwise. */
export function parseFilterCrs(value: unknown): FilterCrs {
  if (value === undefined || value === null || value === '') return 'CRS84';
  for (const [name, uri] of Object.entries(FILTER_CRS_URIS)) {
    if (value === uri || value === name || value === `[${name}]`) return name as FilterCrs;
  }
  throw badRequest(
    `'filter-crs' must be one of ${Object.values(FILTER_CRS_URIS).join(', ')} (got ${JSON.stringify(value)?.slice(0, 80)}).`,
  );
}
