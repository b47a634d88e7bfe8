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
),
kept_stats as (
  select count(*)::int as c,
         case when count(*) <= :p33::int then 0 else sum((pg_column_size(kept.properties) + pg_column_size(kept.geom) + :p34::int)) end as bound
  from kept
),
-- `needsSample` and `keepBySample` in SQL: the first SAMPLE in `rk` order encoded when the bound passes.
keep as (
  select case when c <= :p35::int or bound <= :p36::float8 then c
    else least(c, greatest(1, floor(0.9 * :p37::float8 * :p38::float8 / greatest(1, (
      select octet_length(ST_AsMVT(q, :p39::text, :p40::int, 'geom', 'id'))
      from (
  select k.id, ST_AsMVTGeom(ST_Transform(k.geom, 3857), tile_box.env, :p41::int, :p42::int, true) as geom,
         (jsonb_build_object(:p43::text,
    case when jsonb_typeof((k.properties #> :p44::text[])) in ('object', 'array') then to_jsonb((k.properties #> :p45::text[])::text) else (k.properties #> :p46::text[]) end) || jsonb_build_object(:p47::text,
    case when jsonb_typeof((k.properties #> :p48::text[])) in ('object', 'array') then to_jsonb((k.properties #> :p49::text[])::text) else (k.properties #> :p50::text[]) end) || case when (select thinned from thinning) then jsonb_build_object(:p51::text, true) else '{}'::jsonb end) as attributes
  from (select * from kept where rk <= :p52::int order by id) k, tile_box) q
      where q.geom is not null)))))::int end as n, c
  from kept_stats
),
flags as (select (select thinned from thinning) or n < c as thinned from keep),
chosen as (select id, geom, properties from kept where rk <= (select n from keep) order by id)
select replace(encode(m.tile, 'base64'), chr(10), '') as tile, coalesce(octet_length(m.tile), 0) as bytes, m.n,
       (select thinned from flags) as thinned
from (
  select ST_AsMVT(q, :p53::text, :p54::int, 'geom', 'id') as tile, count(*)::int as n
  from (
  select k.id, ST_AsMVTGeom(ST_Transform(k.geom, 3857), tile_box.env, :p55::int, :p56::int, true) as geom,
         (jsonb_build_object(:p57::text,
    case when jsonb_typeof((k.properties #> :p58::text[])) in ('object', 'array') then to_jsonb((k.properties #> :p59::text[])::text) else (k.properties #> :p60::text[]) end) || jsonb_build_object(:p61::text,
    case when jsonb_typeof((k.properties #> :p62::text[])) in ('object', 'array') then to_jsonb((k.properties #> :p63::text[])::text) else (k.properties #> :p64::text[]) end) || case when (select thinned from flags) then jsonb_build_object(:p65::text, true) else '{}'::jsonb end) as attributes
  from chosen k, tile_box) q
  where q.geom is not null
) m;

-- parameters (65)
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
-- :p33 = 1024
-- :p34 = 24
-- :p35 = 1024
-- :p36 = 500000
-- :p37 = 500000
-- :p38 = 256
-- :p39 = "places"
-- :p40 = 4096
-- :p41 = 4096
-- :p42 = 64
-- :p43 = "kind"
-- :p44 = ["kind"]
-- :p45 = ["kind"]
-- :p46 = ["kind"]
-- :p47 = "size.height"
-- :p48 = ["size","height"]
-- :p49 = ["size","height"]
-- :p50 = ["size","height"]
-- :p51 = "_thinned"
-- :p52 = 256
-- :p53 = "places"
-- :p54 = 4096
-- :p55 = 4096
-- :p56 = 64
-- :p57 = "kind"
-- :p58 = ["kind"]
-- :p59 = ["kind"]
-- :p60 = ["kind"]
-- :p61 = "size.height"
-- :p62 = ["size","height"]
-- :p63 = ["size","height"]
-- :p64 = ["size","height"]
-- :p65 = "_thinned"
