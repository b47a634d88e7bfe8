import type { Queryable } from '#lib/db/index.ts';
import type { CrsLookup } from './crs.ts';

/** EPSG definitions from PostGIS's own `spatial_ref_sys` (no projection database shipped with the code). */
export function srsLookup(sql: Queryable): CrsLookup {
  return async (epsg) => {
    const rows =
      await sql`select proj4text from spatial_ref_sys where auth_name = 'EPSG' and auth_srid = ${epsg}`;
    const text = rows[0]?.proj4text as string | undefined;
    return text?.trim() ? text : null;
  };
}
