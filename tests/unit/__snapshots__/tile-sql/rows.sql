with
tile_box as (
  select e.env,
         ST_Expand(e.env, (ST_XMax(e.env) - ST_XMin(e.env)) * :p1::float8)::box2d as clip,
         :p2::float8 / (ST_XMax(e.env) - ST_XMin(e.env)) as s,
         ST_XMin(e.env) as xmin, ST_YMax(e.env) as ymax
  from (select ST_TileEnvelope(:p3::int, :p4::int, :p5::int) as env) e
),
pixels as materialized (select id, mz from ((select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p6::float8, :p7::float8, :p8::float8, :p9::float8, 4326)) union all (select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p10::float8, :p11::float8, :p12::float8, :p13::float8, 4326)) union all (select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p14::float8, :p15::float8, :p16::float8, :p17::float8, 4326)) union all (select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p18::float8, :p19::float8, :p20::float8, :p21::float8, 4326)) union all (select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p22::float8, :p23::float8, :p24::float8, :p25::float8, 4326)) union all (select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p26::float8, :p27::float8, :p28::float8, :p29::float8, 4326)) union all (select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p30::float8, :p31::float8, :p32::float8, :p33::float8, 4326)) union all (select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p34::float8, :p35::float8, :p36::float8, :p37::float8, 4326)) union all (select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p38::float8, :p39::float8, :p40::float8, :p41::float8, 4326)) union all (select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p42::float8, :p43::float8, :p44::float8, :p45::float8, 4326)) union all (select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p46::float8, :p47::float8, :p48::float8, :p49::float8, 4326)) union all (select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p50::float8, :p51::float8, :p52::float8, :p53::float8, 4326)) union all (select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p54::float8, :p55::float8, :p56::float8, :p57::float8, 4326))) u where true limit :p58::int),
pixel_count as (select count(*)::int as c from pixels),
candidates as materialized (
  select t.id, t.geom, t.properties from "gd_7_1" t where (select c from pixel_count) <= :p59::int and t.geom && ST_MakeEnvelope(:p60::float8, :p61::float8, :p62::float8, :p63::float8, 4326) and true limit :p64::int
),
candidate_count as (select count(*)::int as c from candidates),
mode as (
  select p.c > :p65::int as capped, p.c <= :p66::int and c.c <= :p67::int as complete
  from pixel_count p, candidate_count c
),
picked as materialized (
  select id, rn from (select p.id, row_number() over (order by p.mz, ((p.id * 2654435761::bigint) % 4294967296::bigint), p.id) as rn from pixels p) r
  where not (select complete from mode) and rn <= :p68::int
),
kept as materialized (
  (select c.id, c.geom, c.properties, row_number() over (order by ((c.id * 2654435761::bigint) % 4294967296::bigint), c.id) as rk
   from candidates c where (select complete from mode)
   order by rk limit :p69::int)
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
  select k.id, k.rk, (pg_column_size(k.properties) + pg_column_size(k.geom) + :p70::int) as b,
         ST_RemoveRepeatedPoints(ST_SnapToGrid(ST_Affine(ST_ClipByBox2D(ST_Transform(k.geom, 3857), tile_box.clip),
           tile_box.s, 0, 0, -tile_box.s, -tile_box.xmin * tile_box.s, tile_box.ymax * tile_box.s), 1)) as g,
         (case when jsonb_typeof(k.properties) <> 'object' then '{}'::jsonb
  when not jsonb_path_exists(k.properties, 'strict $.* ? (@.type() == "object" || @.type() == "array")', '{}', true)
    then k.properties
  else (select jsonb_object_agg(e.key, case when jsonb_typeof(e.value) in ('object', 'array')
                                            then to_jsonb(e.value::text) else e.value end)
        from jsonb_each(k.properties) e) end) as attributes
  from kept k, tile_box
) r
order by r.id;

-- parameters (70)
-- :p1 = 0.015625
-- :p2 = 4096
-- :p3 = 12
-- :p4 = 2048
-- :p5 = 1361
-- :p6 = -0.001373291015625
-- :p7 = 51.50788772102843
-- :p8 = 0.089263916015625
-- :p9 = 51.56426602441386
-- :p10 = 719.9986267089844
-- :p11 = 51.50788772102843
-- :p12 = 720.0892639160156
-- :p13 = 51.56426602441386
-- :p14 = 1439.9986267089844
-- :p15 = 51.50788772102843
-- :p16 = 1440.0892639160156
-- :p17 = 51.56426602441386
-- :p18 = 2159.9986267089844
-- :p19 = 51.50788772102843
-- :p20 = 2160.0892639160156
-- :p21 = 51.56426602441386
-- :p22 = 2879.9986267089844
-- :p23 = 51.50788772102843
-- :p24 = 2880.0892639160156
-- :p25 = 51.56426602441386
-- :p26 = 3599.9986267089844
-- :p27 = 51.50788772102843
-- :p28 = 3600.0892639160156
-- :p29 = 51.56426602441386
-- :p30 = 4319.998626708984
-- :p31 = 51.50788772102843
-- :p32 = 4320.089263916016
-- :p33 = 51.56426602441386
-- :p34 = 5039.998626708984
-- :p35 = 51.50788772102843
-- :p36 = 5040.089263916016
-- :p37 = 51.56426602441386
-- :p38 = 5759.998626708984
-- :p39 = 51.50788772102843
-- :p40 = 5760.089263916016
-- :p41 = 51.56426602441386
-- :p42 = 6479.998626708984
-- :p43 = 51.50788772102843
-- :p44 = 6480.089263916016
-- :p45 = 51.56426602441386
-- :p46 = 7199.998626708984
-- :p47 = 51.50788772102843
-- :p48 = 7200.089263916016
-- :p49 = 51.56426602441386
-- :p50 = 7919.998626708984
-- :p51 = 51.50788772102843
-- :p52 = 7920.089263916016
-- :p53 = 51.56426602441386
-- :p54 = 8639.998626708984
-- :p55 = 51.50788772102843
-- :p56 = 8640.089263916016
-- :p57 = 51.56426602441386
-- :p58 = 4097
-- :p59 = 1024
-- :p60 = -0.001373291015625
-- :p61 = 51.50788772102843
-- :p62 = 0.089263916015625
-- :p63 = 51.56426602441386
-- :p64 = 1025
-- :p65 = 1024
-- :p66 = 1024
-- :p67 = 1024
-- :p68 = 1024
-- :p69 = 1024
-- :p70 = 24
