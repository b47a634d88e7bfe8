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
pixels as materialized (select id, mz from ((select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p28::float8, :p29::float8, :p30::float8, :p31::float8, 4326)) union all (select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p32::float8, :p33::float8, :p34::float8, :p35::float8, 4326)) union all (select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p36::float8, :p37::float8, :p38::float8, :p39::float8, 4326)) union all (select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p40::float8, :p41::float8, :p42::float8, :p43::float8, 4326)) union all (select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p44::float8, :p45::float8, :p46::float8, :p47::float8, 4326)) union all (select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p48::float8, :p49::float8, :p50::float8, :p51::float8, 4326)) union all (select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p52::float8, :p53::float8, :p54::float8, :p55::float8, 4326)) union all (select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p56::float8, :p57::float8, :p58::float8, :p59::float8, 4326)) union all (select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p60::float8, :p61::float8, :p62::float8, :p63::float8, 4326)) union all (select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p64::float8, :p65::float8, :p66::float8, :p67::float8, 4326)) union all (select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p68::float8, :p69::float8, :p70::float8, :p71::float8, 4326)) union all (select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p72::float8, :p73::float8, :p74::float8, :p75::float8, 4326)) union all (select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p76::float8, :p77::float8, :p78::float8, :p79::float8, 4326))) u where (select c from candidate_count) > :p80::int limit :p81::int),
pixel_count as (select count(*)::int as c from pixels),
mode as (
  select p.c > :p82::int as capped, p.c <= :p83::int and c.c <= :p84::int as complete
  from pixel_count p, candidate_count c
),
picked as materialized (
  select id, rn from (select p.id, row_number() over (order by p.mz, ((p.id * 2654435761::bigint) % 4294967296::bigint), p.id) as rn from pixels p) r
  where not (select complete from mode) and rn <= :p85::int
),
kept as materialized (
  (select c.id, c.geom, c.properties, row_number() over (order by ((c.id * 2654435761::bigint) % 4294967296::bigint), c.id) as rk
   from candidates c where (select complete from mode)
   order by rk limit :p86::int)
union all
  (select t.id, t.geom, t.properties, row_number() over (order by p.rn) as rk
   from unnest(array(select id from picked order by id), array(select rn from picked order by id)) p(id, rn)
   join "gd_7_1" t on t.id = p.id
   where (ST_Intersects("t"."geom", ST_MakeEnvelope(:p87::float8, :p88::float8, :p89::float8, :p90::float8, :p91::int)) and (select ("cql2_v"."s1" in (:p92::text, :p93::text)) and ("cql2_v"."n2" > :p94::float8) from (select cql2_j.*, ("cql2_j"."j1" #>> '{}') as "s1", (case when abs((case when jsonb_typeof("cql2_j"."j2") = 'number' then ("cql2_j"."j2")::numeric
      when jsonb_typeof("cql2_j"."j2") = 'string' and length(("cql2_j"."j2" #>> '{}')) <= :p95::int and ("cql2_j"."j2" #>> '{}') ~ :p96 and ("cql2_j"."j2" #>> '{}') !~ '[eE][+-]?[0-9]{5}' then ("cql2_j"."j2" #>> '{}')::numeric end)) <= :p97::numeric then
(case when abs((case when jsonb_typeof("cql2_j"."j2") = 'number' then ("cql2_j"."j2")::numeric
      when jsonb_typeof("cql2_j"."j2") = 'string' and length(("cql2_j"."j2" #>> '{}')) <= :p98::int and ("cql2_j"."j2" #>> '{}') ~ :p99 and ("cql2_j"."j2" #>> '{}') !~ '[eE][+-]?[0-9]{5}' then ("cql2_j"."j2" #>> '{}')::numeric end)) < 1e-300 then 0 else (case when jsonb_typeof("cql2_j"."j2") = 'number' then ("cql2_j"."j2")::numeric
      when jsonb_typeof("cql2_j"."j2") = 'string' and length(("cql2_j"."j2" #>> '{}')) <= :p100::int and ("cql2_j"."j2" #>> '{}') ~ :p101 and ("cql2_j"."j2" #>> '{}') !~ '[eE][+-]?[0-9]{5}' then ("cql2_j"."j2" #>> '{}')::numeric end) end)::float8 end) as "n2" from (select ("t"."properties" #> :p102::text[]) as "j1", ("t"."properties" #> :p103::text[]) as "j2" offset 0) cql2_j offset 0) cql2_v)))
),
thinning as (
  select (select capped from mode)
      or (not (select complete from mode)
          and (select count(*) from picked) > (select count(*) from kept)) as thinned
),
kept_stats as (
  select count(*)::int as c,
         case when count(*) <= :p104::int then 0 else sum((pg_column_size(kept.properties) + pg_column_size(kept.geom) + :p105::int)) end as bound
  from kept
),
-- `needsSample` and `keepBySample` in SQL: the first SAMPLE in `rk` order encoded when the bound passes.
keep as (
  select case when c <= :p106::int or bound <= :p107::float8 then c
    else least(c, greatest(1, floor(0.9 * :p108::float8 * :p109::float8 / greatest(1, (
      select octet_length(ST_AsMVT(q, :p110::text, :p111::int, 'geom', 'id'))
      from (
  select k.id, ST_AsMVTGeom(ST_Transform(k.geom, 3857), tile_box.env, :p112::int, :p113::int, true) as geom,
         ((case when jsonb_typeof(k.properties) <> 'object' then '{}'::jsonb
  when not jsonb_path_exists(k.properties, 'strict $.* ? (@.type() == "object" || @.type() == "array")', '{}', true)
    then k.properties
  else (select jsonb_object_agg(e.key, case when jsonb_typeof(e.value) in ('object', 'array')
                                            then to_jsonb(e.value::text) else e.value end)
        from jsonb_each(k.properties) e) end) || case when (select thinned from thinning) then jsonb_build_object(:p114::text, true) else '{}'::jsonb end) as attributes
  from (select * from kept where rk <= :p115::int order by id) k, tile_box) q
      where q.geom is not null)))))::int end as n, c
  from kept_stats
),
flags as (select (select thinned from thinning) or n < c as thinned from keep),
chosen as (select id, geom, properties from kept where rk <= (select n from keep) order by id)
select replace(encode(m.tile, 'base64'), chr(10), '') as tile, coalesce(octet_length(m.tile), 0) as bytes, m.n,
       (select thinned from flags) as thinned
from (
  select ST_AsMVT(q, :p116::text, :p117::int, 'geom', 'id') as tile, count(*)::int as n
  from (
  select k.id, ST_AsMVTGeom(ST_Transform(k.geom, 3857), tile_box.env, :p118::int, :p119::int, true) as geom,
         ((case when jsonb_typeof(k.properties) <> 'object' then '{}'::jsonb
  when not jsonb_path_exists(k.properties, 'strict $.* ? (@.type() == "object" || @.type() == "array")', '{}', true)
    then k.properties
  else (select jsonb_object_agg(e.key, case when jsonb_typeof(e.value) in ('object', 'array')
                                            then to_jsonb(e.value::text) else e.value end)
        from jsonb_each(k.properties) e) end) || case when (select thinned from flags) then jsonb_build_object(:p120::text, true) else '{}'::jsonb end) as attributes
  from chosen k, tile_box) q
  where q.geom is not null
) m;

-- parameters (120)
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
-- :p29 = 51.50788772102843
-- :p30 = 0.089263916015625
-- :p31 = 51.56426602441386
-- :p32 = 719.9986267089844
-- :p33 = 51.50788772102843
-- :p34 = 720.0892639160156
-- :p35 = 51.56426602441386
-- :p36 = 1439.9986267089844
-- :p37 = 51.50788772102843
-- :p38 = 1440.0892639160156
-- :p39 = 51.56426602441386
-- :p40 = 2159.9986267089844
-- :p41 = 51.50788772102843
-- :p42 = 2160.0892639160156
-- :p43 = 51.56426602441386
-- :p44 = 2879.9986267089844
-- :p45 = 51.50788772102843
-- :p46 = 2880.0892639160156
-- :p47 = 51.56426602441386
-- :p48 = 3599.9986267089844
-- :p49 = 51.50788772102843
-- :p50 = 3600.0892639160156
-- :p51 = 51.56426602441386
-- :p52 = 4319.998626708984
-- :p53 = 51.50788772102843
-- :p54 = 4320.089263916016
-- :p55 = 51.56426602441386
-- :p56 = 5039.998626708984
-- :p57 = 51.50788772102843
-- :p58 = 5040.089263916016
-- :p59 = 51.56426602441386
-- :p60 = 5759.998626708984
-- :p61 = 51.50788772102843
-- :p62 = 5760.089263916016
-- :p63 = 51.56426602441386
-- :p64 = 6479.998626708984
-- :p65 = 51.50788772102843
-- :p66 = 6480.089263916016
-- :p67 = 51.56426602441386
-- :p68 = 7199.998626708984
-- :p69 = 51.50788772102843
-- :p70 = 7200.089263916016
-- :p71 = 51.56426602441386
-- :p72 = 7919.998626708984
-- :p73 = 51.50788772102843
-- :p74 = 7920.089263916016
-- :p75 = 51.56426602441386
-- :p76 = 8639.998626708984
-- :p77 = 51.50788772102843
-- :p78 = 8640.089263916016
-- :p79 = 51.56426602441386
-- :p80 = 1024
-- :p81 = 4097
-- :p82 = 1024
-- :p83 = 1024
-- :p84 = 1024
-- :p85 = 1024
-- :p86 = 1024
-- :p87 = 0
-- :p88 = 0
-- :p89 = 1
-- :p90 = 1
-- :p91 = 4326
-- :p92 = "volcano"
-- :p93 = "crater"
-- :p94 = 100
-- :p95 = 1000
-- :p96 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p97 = 1e+150
-- :p98 = 1000
-- :p99 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p100 = 1000
-- :p101 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p102 = ["kind"]
-- :p103 = ["height"]
-- :p104 = 1024
-- :p105 = 24
-- :p106 = 1024
-- :p107 = 500000
-- :p108 = 500000
-- :p109 = 256
-- :p110 = "places"
-- :p111 = 4096
-- :p112 = 4096
-- :p113 = 64
-- :p114 = "_thinned"
-- :p115 = 256
-- :p116 = "places"
-- :p117 = 4096
-- :p118 = 4096
-- :p119 = 64
-- :p120 = "_thinned"
