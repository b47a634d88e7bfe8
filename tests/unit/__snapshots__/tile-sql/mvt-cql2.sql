with
tile_box as (
  select e.env,
         ST_Expand(e.env, (ST_XMax(e.env) - ST_XMin(e.env)) * :p1::float8)::box2d as clip,
         :p2::float8 / (ST_XMax(e.env) - ST_XMin(e.env)) as s,
         ST_XMin(e.env) as xmin, ST_YMax(e.env) as ymax
  from (select ST_TileEnvelope(:p3::int, :p4::int, :p5::int) as env) e
),
candidates as materialized (
  select t.id, t.geom, t.properties from "gd_7_1" t where true and t.geom && ST_MakeEnvelope(:p6::float8, :p7::float8, :p8::float8, :p9::float8, 4326) and (ST_Intersects("t"."geom", ST_MakeEnvelope(:p10::float8, :p11::float8, :p12::float8, :p13::float8, :p14::int)) and (select ("cql2_v"."s1" in (:p15::text, :p16::text)) and ("cql2_v"."n2" > :p17::float8) from (select cql2_j.*, ("cql2_j"."j1" #>> '{}') as "s1", (case when abs((case when jsonb_typeof("cql2_j"."j2") = 'number' then ("cql2_j"."j2")::numeric
      when jsonb_typeof("cql2_j"."j2") = 'string' and length(("cql2_j"."j2" #>> '{}')) <= :p18::int and ("cql2_j"."j2" #>> '{}') ~ :p19 and ("cql2_j"."j2" #>> '{}') !~ '[eE][+-]?[0-9]{5}' then ("cql2_j"."j2" #>> '{}')::numeric end)) <= :p20::numeric then
(case when abs((case when jsonb_typeof("cql2_j"."j2") = 'number' then ("cql2_j"."j2")::numeric
      when jsonb_typeof("cql2_j"."j2") = 'string' and length(("cql2_j"."j2" #>> '{}')) <= :p21::int and ("cql2_j"."j2" #>> '{}') ~ :p22 and ("cql2_j"."j2" #>> '{}') !~ '[eE][+-]?[0-9]{5}' then ("cql2_j"."j2" #>> '{}')::numeric end)) < 1e-300 then 0 else (case when jsonb_typeof("cql2_j"."j2") = 'number' then ("cql2_j"."j2")::numeric
      when jsonb_typeof("cql2_j"."j2") = 'string' and length(("cql2_j"."j2" #>> '{}')) <= :p23::int and ("cql2_j"."j2" #>> '{}') ~ :p24 and ("cql2_j"."j2" #>> '{}') !~ '[eE][+-]?[0-9]{5}' then ("cql2_j"."j2" #>> '{}')::numeric end) end)::float8 end) as "n2" from (select ("t"."properties" #> :p25::text[]) as "j1", ("t"."properties" #> :p26::text[]) as "j2" offset 0) cql2_j offset 0) cql2_v)) limit :p27::int
),
candidate_count as (select count(*)::int as c from candidates),
pixels as materialized (
with recursive levels (j, ids, mzs, total) as (
  select 0, l.ids, l.mzs, cardinality(l.ids) from (
select coalesce(array_agg(o.id), '{}'::bigint[]) as ids, coalesce(array_agg(o.mz), '{}'::smallint[]) as mzs
from (select o.id, o.mz from "gd_7_1_ovr" o
      where o.k && ST_MakeEnvelope(:p28::float8 + :p29::float8 * 0, :p30::float8,
                                   :p31::float8 + :p32::float8 * 0, :p33::float8, 4326)
      limit :p34::int) o) l where (select c from candidate_count) > :p35::int
  union all
  select v.j + 1, l.ids, l.mzs, v.total + cardinality(l.ids)
  from levels v cross join lateral (
select coalesce(array_agg(o.id), '{}'::bigint[]) as ids, coalesce(array_agg(o.mz), '{}'::smallint[]) as mzs
from (select o.id, o.mz from "gd_7_1_ovr" o
      where o.k && ST_MakeEnvelope(:p36::float8 + :p37::float8 * (v.j + 1), :p38::float8,
                                   :p39::float8 + :p40::float8 * (v.j + 1), :p41::float8, 4326)
      limit :p42::int) o) l
  where v.total <= :p43::int and v.j < :p44::int
)
select u.id, u.mz from levels v cross join lateral unnest(v.ids, v.mzs) u(id, mz)),
pixel_count as (select count(*)::int as c from pixels),
mode as (
  select p.c > :p45::int as capped, p.c <= :p46::int and c.c <= :p47::int as complete
  from pixel_count p, candidate_count c
),
picked as materialized (
  select id, rn from (select p.id, row_number() over (order by p.mz, ((p.id * 2654435761::bigint) % 4294967296::bigint), p.id) as rn from pixels p) r
  where not (select complete from mode) and rn <= :p48::int
),
kept as materialized (
  (select c.id, c.geom, c.properties, row_number() over (order by ((c.id * 2654435761::bigint) % 4294967296::bigint), c.id) as rk
   from candidates c where (select complete from mode)
   order by rk limit :p49::int)
union all
  (select t.id, t.geom, t.properties, row_number() over (order by p.rn) as rk
   from unnest(array(select id from picked order by id), array(select rn from picked order by id)) p(id, rn)
   join "gd_7_1" t on t.id = p.id
   where (ST_Intersects("t"."geom", ST_MakeEnvelope(:p50::float8, :p51::float8, :p52::float8, :p53::float8, :p54::int)) and (select ("cql2_v"."s1" in (:p55::text, :p56::text)) and ("cql2_v"."n2" > :p57::float8) from (select cql2_j.*, ("cql2_j"."j1" #>> '{}') as "s1", (case when abs((case when jsonb_typeof("cql2_j"."j2") = 'number' then ("cql2_j"."j2")::numeric
      when jsonb_typeof("cql2_j"."j2") = 'string' and length(("cql2_j"."j2" #>> '{}')) <= :p58::int and ("cql2_j"."j2" #>> '{}') ~ :p59 and ("cql2_j"."j2" #>> '{}') !~ '[eE][+-]?[0-9]{5}' then ("cql2_j"."j2" #>> '{}')::numeric end)) <= :p60::numeric then
(case when abs((case when jsonb_typeof("cql2_j"."j2") = 'number' then ("cql2_j"."j2")::numeric
      when jsonb_typeof("cql2_j"."j2") = 'string' and length(("cql2_j"."j2" #>> '{}')) <= :p61::int and ("cql2_j"."j2" #>> '{}') ~ :p62 and ("cql2_j"."j2" #>> '{}') !~ '[eE][+-]?[0-9]{5}' then ("cql2_j"."j2" #>> '{}')::numeric end)) < 1e-300 then 0 else (case when jsonb_typeof("cql2_j"."j2") = 'number' then ("cql2_j"."j2")::numeric
      when jsonb_typeof("cql2_j"."j2") = 'string' and length(("cql2_j"."j2" #>> '{}')) <= :p63::int and ("cql2_j"."j2" #>> '{}') ~ :p64 and ("cql2_j"."j2" #>> '{}') !~ '[eE][+-]?[0-9]{5}' then ("cql2_j"."j2" #>> '{}')::numeric end) end)::float8 end) as "n2" from (select ("t"."properties" #> :p65::text[]) as "j1", ("t"."properties" #> :p66::text[]) as "j2" offset 0) cql2_j offset 0) cql2_v)))
),
thinning as (
  select (select capped from mode)
      or (not (select complete from mode)
          and (select count(*) from picked) > (select count(*) from kept)) as thinned
),
kept_stats as (
  select count(*)::int as c,
         case when count(*) <= :p67::int then 0 else sum((pg_column_size(kept.properties) + pg_column_size(kept.geom) + :p68::int)) end as bound
  from kept
),
-- `needsSample` and `keepBySample` in SQL: the first SAMPLE in `rk` order encoded when the bound passes.
keep as (
  select case when c <= :p69::int or bound <= :p70::float8 then c
    else least(c, greatest(1, floor(0.9 * :p71::float8 * :p72::float8 / greatest(1, (
      select octet_length(ST_AsMVT(q, :p73::text, :p74::int, 'geom', 'id'))
      from (
  select k.id, ST_AsMVTGeom(ST_Transform(k.geom, 3857), tile_box.env, :p75::int, :p76::int, true) as geom,
         ((case when jsonb_typeof(k.properties) <> 'object' then '{}'::jsonb
  when not jsonb_path_exists(k.properties, 'strict $.* ? (@.type() == "object" || @.type() == "array")', '{}', true)
    then k.properties
  else (select jsonb_object_agg(e.key, case when jsonb_typeof(e.value) in ('object', 'array')
                                            then to_jsonb(e.value::text) else e.value end)
        from jsonb_each(k.properties) e) end) || case when (select thinned from thinning) then jsonb_build_object(:p77::text, true) else '{}'::jsonb end) as attributes
  from (select * from kept where rk <= :p78::int order by id) k, tile_box) q
      where q.geom is not null)))))::int end as n, c
  from kept_stats
),
flags as (select (select thinned from thinning) or n < c as thinned from keep),
chosen as (select id, geom, properties from kept where rk <= (select n from keep) order by id)
select replace(encode(m.tile, 'base64'), chr(10), '') as tile, coalesce(octet_length(m.tile), 0) as bytes, m.n,
       (select thinned from flags) as thinned
from (
  select ST_AsMVT(q, :p79::text, :p80::int, 'geom', 'id') as tile, count(*)::int as n
  from (
  select k.id, ST_AsMVTGeom(ST_Transform(k.geom, 3857), tile_box.env, :p81::int, :p82::int, true) as geom,
         ((case when jsonb_typeof(k.properties) <> 'object' then '{}'::jsonb
  when not jsonb_path_exists(k.properties, 'strict $.* ? (@.type() == "object" || @.type() == "array")', '{}', true)
    then k.properties
  else (select jsonb_object_agg(e.key, case when jsonb_typeof(e.value) in ('object', 'array')
                                            then to_jsonb(e.value::text) else e.value end)
        from jsonb_each(k.properties) e) end) || case when (select thinned from flags) then jsonb_build_object(:p83::text, true) else '{}'::jsonb end) as attributes
  from chosen k, tile_box) q
  where q.geom is not null
) m;

-- parameters (83)
-- :p1 = 0.015625
-- :p2 = 4096
-- :p3 = 12
-- :p4 = 2048
-- :p5 = 1361
-- :p6 = -0.001373291015625
-- :p7 = 51.50788772102843
-- :p8 = 0.089263916015625
-- :p9 = 51.56426602441386
-- :p10 = 0
-- :p11 = 0
-- :p12 = 1
-- :p13 = 1
-- :p14 = 4326
-- :p15 = "volcano"
-- :p16 = "crater"
-- :p17 = 100
-- :p18 = 1000
-- :p19 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p20 = 1e+150
-- :p21 = 1000
-- :p22 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p23 = 1000
-- :p24 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p25 = ["kind"]
-- :p26 = ["height"]
-- :p27 = 1025
-- :p28 = -0.001373291015625
-- :p29 = 720
-- :p30 = 51.50788772102843
-- :p31 = 0.089263916015625
-- :p32 = 720
-- :p33 = 51.56426602441386
-- :p34 = 4097
-- :p35 = 1024
-- :p36 = -0.001373291015625
-- :p37 = 720
-- :p38 = 51.50788772102843
-- :p39 = 0.089263916015625
-- :p40 = 720
-- :p41 = 51.56426602441386
-- :p42 = 4097
-- :p43 = 1024
-- :p44 = 12
-- :p45 = 1024
-- :p46 = 1024
-- :p47 = 1024
-- :p48 = 1024
-- :p49 = 1024
-- :p50 = 0
-- :p51 = 0
-- :p52 = 1
-- :p53 = 1
-- :p54 = 4326
-- :p55 = "volcano"
-- :p56 = "crater"
-- :p57 = 100
-- :p58 = 1000
-- :p59 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p60 = 1e+150
-- :p61 = 1000
-- :p62 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p63 = 1000
-- :p64 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p65 = ["kind"]
-- :p66 = ["height"]
-- :p67 = 1024
-- :p68 = 24
-- :p69 = 1024
-- :p70 = 500000
-- :p71 = 500000
-- :p72 = 256
-- :p73 = "places"
-- :p74 = 4096
-- :p75 = 4096
-- :p76 = 64
-- :p77 = "_thinned"
-- :p78 = 256
-- :p79 = "places"
-- :p80 = 4096
-- :p81 = 4096
-- :p82 = 64
-- :p83 = "_thinned"
