with
tile_box as (
  select e.env,
         ST_Expand(e.env, (ST_XMax(e.env) - ST_XMin(e.env)) * :p1::float8)::box2d as clip,
         :p2::float8 / (ST_XMax(e.env) - ST_XMin(e.env)) as s,
         ST_XMin(e.env) as xmin, ST_YMax(e.env) as ymax
  from (select ST_TileEnvelope(:p3::int, :p4::int, :p5::int) as env) e
),
pixels as materialized (
with recursive levels (j, ids, mzs, total) as (
  select 0, l.ids, l.mzs, cardinality(l.ids) from (
select coalesce(array_agg(o.id), '{}'::bigint[]) as ids, coalesce(array_agg(o.mz), '{}'::smallint[]) as mzs
from (select o.id, o.mz from "gd_7_1_ovr" o
      where o.k && ST_MakeEnvelope(:p6::float8 + :p7::float8 * 0, :p8::float8,
                                   :p9::float8 + :p10::float8 * 0, :p11::float8, 4326)
      limit :p12::int) o) l where true
  union all
  select v.j + 1, l.ids, l.mzs, v.total + cardinality(l.ids)
  from levels v cross join lateral (
select coalesce(array_agg(o.id), '{}'::bigint[]) as ids, coalesce(array_agg(o.mz), '{}'::smallint[]) as mzs
from (select o.id, o.mz from "gd_7_1_ovr" o
      where o.k && ST_MakeEnvelope(:p13::float8 + :p14::float8 * (v.j + 1), :p15::float8,
                                   :p16::float8 + :p17::float8 * (v.j + 1), :p18::float8, 4326)
      limit :p19::int) o) l
  where v.total <= :p20::int and v.j < :p21::int
)
select u.id, u.mz from levels v cross join lateral unnest(v.ids, v.mzs) u(id, mz)),
pixel_count as (select count(*)::int as c from pixels),
candidates as materialized (
  select t.id, t.geom, t.properties from "gd_7_1" t where (select c from pixel_count) <= :p22::int and t.geom && ST_MakeEnvelope(:p23::float8, :p24::float8, :p25::float8, :p26::float8, 4326) and true limit :p27::int
),
candidate_count as (select count(*)::int as c from candidates),
mode as (
  select p.c > :p28::int as capped, p.c <= :p29::int and c.c <= :p30::int as complete
  from pixel_count p, candidate_count c
),
picked as materialized (
  select id, rn from (select p.id, row_number() over (order by p.mz, ((p.id * 2654435761::bigint) % 4294967296::bigint), p.id) as rn from pixels p) r
  where not (select complete from mode) and rn <= :p31::int
),
kept as materialized (
  (select c.id, c.geom, c.properties, row_number() over (order by ((c.id * 2654435761::bigint) % 4294967296::bigint), c.id) as rk
   from candidates c where (select complete from mode)
   order by rk limit :p32::int)
union all
  (select t.id, t.geom, t.properties, row_number() over (order by p.rn) as rk
   from unnest(array(select id from picked order by id), array(select rn from picked order by id)) p(id, rn)
   join "gd_7_1" t on t.id = p.id
   where true)
),
thinning as (
  select (select capped from mode)
      or (not (select complete from mode)
          and (select count(*) from picked) > (select count(*) from kept)) as thinned
)
select r.id, ST_AsGeoJSON(r.g, 0) as g, r.attributes, r.b, r.rk, (select thinned from thinning) as thinned
from (
  select k.id, k.rk, (pg_column_size(k.properties) + pg_column_size(k.geom) + :p33::int) as b,
         ST_RemoveRepeatedPoints(ST_SnapToGrid(ST_Affine(ST_ClipByBox2D(ST_Transform(k.geom, 3857), tile_box.clip),
           tile_box.s, 0, 0, -tile_box.s, -tile_box.xmin * tile_box.s, tile_box.ymax * tile_box.s), 1)) as g,
         jsonb_build_object(:p34::text,
    case when jsonb_typeof((k.properties #> :p35::text[])) in ('object', 'array') then to_jsonb((k.properties #> :p36::text[])::text) else (k.properties #> :p37::text[]) end) || jsonb_build_object(:p38::text,
    case when jsonb_typeof((k.properties #> :p39::text[])) in ('object', 'array') then to_jsonb((k.properties #> :p40::text[])::text) else (k.properties #> :p41::text[]) end) as attributes
  from kept k, tile_box
) r
order by r.id;

-- parameters (41)
-- :p1 = 0.015625
-- :p2 = 4096
-- :p3 = 12
-- :p4 = 2048
-- :p5 = 1361
-- :p6 = -0.001373291015625
-- :p7 = 720
-- :p8 = 51.50788772102843
-- :p9 = 0.089263916015625
-- :p10 = 720
-- :p11 = 51.56426602441386
-- :p12 = 4097
-- :p13 = -0.001373291015625
-- :p14 = 720
-- :p15 = 51.50788772102843
-- :p16 = 0.089263916015625
-- :p17 = 720
-- :p18 = 51.56426602441386
-- :p19 = 4097
-- :p20 = 1024
-- :p21 = 12
-- :p22 = 1024
-- :p23 = -0.001373291015625
-- :p24 = 51.50788772102843
-- :p25 = 0.089263916015625
-- :p26 = 51.56426602441386
-- :p27 = 1025
-- :p28 = 1024
-- :p29 = 1024
-- :p30 = 1024
-- :p31 = 1024
-- :p32 = 1024
-- :p33 = 24
-- :p34 = "kind"
-- :p35 = ["kind"]
-- :p36 = ["kind"]
-- :p37 = ["kind"]
-- :p38 = "size.height"
-- :p39 = ["size","height"]
-- :p40 = ["size","height"]
-- :p41 = ["size","height"]
