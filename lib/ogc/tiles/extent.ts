import type { Queryable } from '#lib/db/index.ts';
import { type Geodataset, sqlTable } from '#lib/geodatasets/catalog.ts';

export type Bbox = [number, number, number, number];

/** The dataset's lon/lat extent (`ST_Extent` of its geometries), or null when it holds no feature. */
export async function readExtent(sql: Queryable, ds: Geodataset): Promise<Bbox | null> {
  const [row] = await sql`
    select ST_XMin(e) as minx, ST_YMin(e) as miny, ST_XMax(e) as maxx, ST_YMax(e) as maxy
    from (select ST_Extent(geom)::geometry as e from ${sqlTable(sql, ds)}) s`;
  if (!row || row.minx === null) return null;
  return [Number(row.minx), Number(row.miny), Number(row.maxx), Number(row.maxy)];
}
