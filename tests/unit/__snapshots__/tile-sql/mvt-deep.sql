with
tile_box as (
  select e.env,
         ST_Expand(e.env, (ST_XMax(e.env) - ST_XMin(e.env)) * :p1::float8)::box2d as clip,
         :p2::float8 / (ST_XMax(e.env) - ST_XMin(e.env)) as s,
         ST_XMin(e.env) as xmin, ST_YMax(e.env) as ymax
  from (select ST_TileEnvelope(:p3::int, :p4::int, :p5::int) as env) e
),
pixels as materialized (select null::bigint as id, null::smallint as mz where false),
pixel_count as (select count(*)::int as c from pixels),
candidates as materialized (
  select t.id, t.geom, t.properties from "gd_7_1" t where (select c from pixel_count) <= :p6::int and t.geom && ST_MakeEnvelope(:p7::float8, :p8::float8, :p9::float8, :p10::float8, 4326) and true limit :p11::int
),
candidate_count as (select count(*)::int as c from candidates),
mode as (
  select p.c > :p12::int as capped, p.c <= :p13::int and c.c <= :p14::int as complete
  from pixel_count p, candidate_count c
),
picked as materialized (
  select id, rn from (select p.id, row_number() over (order by p.mz, ((p.id * 2654435761::bigint) % 4294967296::bigint), p.id) as rn from pixels p) r
  where not (select complete from mode) and rn <= :p15::int
),
kept as materialized (
  (select c.id, c.geom, c.properties, row_number() over (order by ((c.id * 2654435761::bigint) % 4294967296::bigint), c.id) as rk
   from candidates c where (select complete from mode) or true
   order by rk limit :p16::int)
),
thinning as (
  select (select capped from mode)
      or (not (select complete from mode)
          and true) as thinned
),
kept_stats as (
  select count(*)::int as c,
         case when count(*) <= :p17::int then 0 else sum((pg_column_size(kept.properties) + pg_column_size(kept.geom) + :p18::int)) end as bound
  from kept
),
-- `needsSample` and `keepBySample` in SQL: the first SAMPLE in `rk` order encoded when the bound passes.
keep as (
  select case when c <= :p19::int or bound <= :p20::float8 then c
    else least(c, greatest(1, floor(0.9 * :p21::float8 * :p22::float8 / greatest(1, (
      select octet_length(ST_AsMVT(q, :p23::text, :p24::int, 'geom', 'id'))
      from (
  select k.id, ST_AsMVTGeom(ST_Transform(k.geom, 3857), tile_box.env, :p25::int, :p26::int, true) as geom,
         ((case when jsonb_typeof(k.properties) <> 'object' then '{}'::jsonb
  when not jsonb_path_exists(k.properties, 'strict $.* ? (@.type() == "object" || @.type() == "array")', '{}', true)
    then k.properties
  else (select jsonb_object_agg(e.key, case when jsonb_typeof(e.value) in ('object', 'array')
                                            then to_jsonb(e.value::text) else e.value end)
        from jsonb_each(k.properties) e) end) || case when (select thinned from thinning) then jsonb_build_object(:p27::text, true) else '{}'::jsonb end) as attributes
  from (select * from kept where rk <= :p28::int order by id) k, tile_box) q
      where q.geom is not null)))))::int end as n, c
  from kept_stats
),
flags as (select (select thinned from thinning) or n < c as thinned from keep),
chosen as (select id, geom, properties from kept where rk <= (select n from keep) order by id)
select replace(encode(m.tile, 'base64'), chr(10), '') as tile, coalesce(octet_length(m.tile), 0) as bytes, m.n,
       (select thinned from flags) as thinned
from (
  select ST_AsMVT(q, :p29::text, :p30::int, 'geom', 'id') as tile, count(*)::int as n
  from (
  select k.id, ST_AsMVTGeom(ST_Transform(k.geom, 3857), tile_box.env, :p31::int, :p32::int, true) as geom,
         ((case when jsonb_typeof(k.properties) <> 'object' then '{}'::jsonb
  when not jsonb_path_exists(k.properties, 'strict $.* ? (@.type() == "object" || @.type() == "array")', '{}', true)
    then k.properties
  else (select jsonb_object_agg(e.key, case when jsonb_typeof(e.value) in ('object', 'array')
                                            then to_jsonb(e.value::text) else e.value end)
        from jsonb_each(k.properties) e) end) || case when (select thinned from flags) then jsonb_build_object(:p33::text, true) else '{}'::jsonb end) as attributes
  from chosen k, tile_box) q
  where q.geom is not null
) m;

-- parameters (33)
-- :p1 = 0.015625
-- :p2 = 4096
-- :p3 = 23
-- :p4 = 4194304
-- :p5 = 2796202
-- :p6 = 1024
-- :p7 = -6.705522537231445e-7
-- :p8 = 51.32602569180465
-- :p9 = 0.000043585896492004395
-- :p10 = 51.326053347124216
-- :p11 = 1025
-- :p12 = 1024
-- :p13 = 1024
-- :p14 = 1024
-- :p15 = 1024
-- :p16 = 1024
-- :p17 = 1024
-- :p18 = 24
-- :p19 = 1024
-- :p20 = 500000
-- :p21 = 500000
-- :p22 = 256
-- :p23 = "places"
-- :p24 = 4096
-- :p25 = 4096
-- :p26 = 64
-- :p27 = "_thinned"
-- :p28 = 256
-- :p29 = "places"
-- :p30 = 4096
-- :p31 = 4096
-- :p32 = 64
-- :p33 = "_thinned"
