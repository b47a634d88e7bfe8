-- Extents of each geodataset kept in the catalog (docs/ogc.md, "Extents and queryables"), so the OGC API
-- collections answer without scanning: the 2D bounding box of the geometries (lon/lat), the earliest and
-- latest time of start_time/end_time, and per top-level property the count of non-null values of each
-- JSON type. Maintained by every write (lib/geodatasets/extents.ts); filled here for existing datasets.
alter table geodatasets
  add column extent_bbox float8[],
  add column time_min timestamptz,
  add column time_max timestamptz,
  add column property_types jsonb;

do $$
declare
  d record;
begin
  for d in select id, table_name, properties_type from geodatasets loop
    if to_regclass(d.table_name) is null then
      continue;
    end if;
    execute format(
      'update geodatasets g set extent_bbox = x.bbox, time_min = x.tmin, time_max = x.tmax, property_types = x.types
       from (select
         (select array[ST_XMin(e), ST_YMin(e), ST_XMax(e), ST_YMax(e)] from (select ST_Extent(geom)::box2d as e from %1$I) b where e is not null) as bbox,
         (select least(min(start_time), min(end_time)) from %1$I) as tmin,
         (select greatest(max(start_time), max(end_time)) from %1$I) as tmax,
         (select coalesce(jsonb_object_agg(k, types), ''{}''::jsonb) from (
            select k, jsonb_object_agg(t, n) as types from (
              select e.key as k, jsonb_typeof(e.value) as t, count(*) as n
              from %1$I s, lateral jsonb_each(case when jsonb_typeof(s.properties::jsonb) = ''object'' then s.properties::jsonb else ''{}''::jsonb end) e
              where jsonb_typeof(e.value) <> ''null'' group by 1, 2) c group by k) p) as types
       ) x where g.id = %2$s', d.table_name, d.id);
  end loop;
end $$;
