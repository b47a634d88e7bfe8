with
tile_box as (
  select e.env,
         ST_Expand(e.env, (ST_XMax(e.env) - ST_XMin(e.env)) * :p1::float8)::box2d as clip,
         :p2::float8 / (ST_XMax(e.env) - ST_XMin(e.env)) as s,
         ST_XMin(e.env) as xmin, ST_YMax(e.env) as ymax
  from (select ST_TileEnvelope(:p3::int, :p4::int, :p5::int) as env) e
),
candidates as materialized (
  select t.id, t.geom, t.properties from "gd_7_1" t where true and t.geom && ST_MakeEnvelope(:p6::float8, :p7::float8, :p8::float8, :p9::float8, 4326) and ("t"."start_time" <= (:p10::text)::timestamptz or ("t"."start_time" is null and "t"."end_time" <= (:p11::text)::timestamptz)) and ("t"."end_time" >= (:p12::text)::timestamptz or ("t"."end_time" is null and "t"."start_time" >= (:p13::text)::timestamptz)) and (("t"."properties" #> :p14::text[]) #>> '{}') = :p15::text and (case when abs((case when jsonb_typeof(("t"."properties" #> :p16::text[])) = 'number' then (("t"."properties" #> :p17::text[]))::numeric
      when jsonb_typeof(("t"."properties" #> :p18::text[])) = 'string' and length((("t"."properties" #> :p19::text[]) #>> '{}')) <= :p20::int and (("t"."properties" #> :p21::text[]) #>> '{}') ~ :p22 and (("t"."properties" #> :p23::text[]) #>> '{}') !~ '[eE][+-]?[0-9]{5}' then (("t"."properties" #> :p24::text[]) #>> '{}')::numeric end)) <= :p25::numeric then
(case when abs((case when jsonb_typeof(("t"."properties" #> :p26::text[])) = 'number' then (("t"."properties" #> :p27::text[]))::numeric
      when jsonb_typeof(("t"."properties" #> :p28::text[])) = 'string' and length((("t"."properties" #> :p29::text[]) #>> '{}')) <= :p30::int and (("t"."properties" #> :p31::text[]) #>> '{}') ~ :p32 and (("t"."properties" #> :p33::text[]) #>> '{}') !~ '[eE][+-]?[0-9]{5}' then (("t"."properties" #> :p34::text[]) #>> '{}')::numeric end)) < 1e-300 then 0 else (case when jsonb_typeof(("t"."properties" #> :p35::text[])) = 'number' then (("t"."properties" #> :p36::text[]))::numeric
      when jsonb_typeof(("t"."properties" #> :p37::text[])) = 'string' and length((("t"."properties" #> :p38::text[]) #>> '{}')) <= :p39::int and (("t"."properties" #> :p40::text[]) #>> '{}') ~ :p41 and (("t"."properties" #> :p42::text[]) #>> '{}') !~ '[eE][+-]?[0-9]{5}' then (("t"."properties" #> :p43::text[]) #>> '{}')::numeric end) end)::float8 end) > :p44::float8 limit :p45::int
),
candidate_count as (select count(*)::int as c from candidates),
pixels as materialized (
with recursive levels (j, ids, mzs, total) as (
  select 0, l.ids, l.mzs, cardinality(l.ids) from (
select coalesce(array_agg(o.id), '{}'::bigint[]) as ids, coalesce(array_agg(o.mz), '{}'::smallint[]) as mzs
from (select o.id, o.mz from "gd_7_1_ovr" o
      where o.k && ST_MakeEnvelope(:p46::float8 + :p47::float8 * 0, :p48::float8,
                                   :p49::float8 + :p50::float8 * 0, :p51::float8, 4326)
      limit :p52::int) o) l where (select c from candidate_count) > :p53::int
  union all
  select v.j + 1, l.ids, l.mzs, v.total + cardinality(l.ids)
  from levels v cross join lateral (
select coalesce(array_agg(o.id), '{}'::bigint[]) as ids, coalesce(array_agg(o.mz), '{}'::smallint[]) as mzs
from (select o.id, o.mz from "gd_7_1_ovr" o
      where o.k && ST_MakeEnvelope(:p54::float8 + :p55::float8 * (v.j + 1), :p56::float8,
                                   :p57::float8 + :p58::float8 * (v.j + 1), :p59::float8, 4326)
      limit :p60::int) o) l
  where v.total <= :p61::int and v.j < :p62::int
)
select u.id, u.mz from levels v cross join lateral unnest(v.ids, v.mzs) u(id, mz)),
pixel_count as (select count(*)::int as c from pixels),
mode as (
  select p.c > :p63::int as capped, p.c <= :p64::int and c.c <= :p65::int as complete
  from pixel_count p, candidate_count c
),
picked as materialized (
  select id, rn from (select p.id, row_number() over (order by p.mz, ((p.id * 2654435761::bigint) % 4294967296::bigint), p.id) as rn from pixels p) r
  where not (select complete from mode) and rn <= :p66::int
),
kept as materialized (
  (select c.id, c.geom, c.properties, row_number() over (order by ((c.id * 2654435761::bigint) % 4294967296::bigint), c.id) as rk
   from candidates c where (select complete from mode)
   order by rk limit :p67::int)
union all
  (select t.id, t.geom, t.properties, row_number() over (order by p.rn) as rk
   from unnest(array(select id from picked order by id), array(select rn from picked order by id)) p(id, rn)
   join "gd_7_1" t on t.id = p.id
   where ("t"."start_time" <= (:p68::text)::timestamptz or ("t"."start_time" is null and "t"."end_time" <= (:p69::text)::timestamptz)) and ("t"."end_time" >= (:p70::text)::timestamptz or ("t"."end_time" is null and "t"."start_time" >= (:p71::text)::timestamptz)) and (("t"."properties" #> :p72::text[]) #>> '{}') = :p73::text and (case when abs((case when jsonb_typeof(("t"."properties" #> :p74::text[])) = 'number' then (("t"."properties" #> :p75::text[]))::numeric
      when jsonb_typeof(("t"."properties" #> :p76::text[])) = 'string' and length((("t"."properties" #> :p77::text[]) #>> '{}')) <= :p78::int and (("t"."properties" #> :p79::text[]) #>> '{}') ~ :p80 and (("t"."properties" #> :p81::text[]) #>> '{}') !~ '[eE][+-]?[0-9]{5}' then (("t"."properties" #> :p82::text[]) #>> '{}')::numeric end)) <= :p83::numeric then
(case when abs((case when jsonb_typeof(("t"."properties" #> :p84::text[])) = 'number' then (("t"."properties" #> :p85::text[]))::numeric
      when jsonb_typeof(("t"."properties" #> :p86::text[])) = 'string' and length((("t"."properties" #> :p87::text[]) #>> '{}')) <= :p88::int and (("t"."properties" #> :p89::text[]) #>> '{}') ~ :p90 and (("t"."properties" #> :p91::text[]) #>> '{}') !~ '[eE][+-]?[0-9]{5}' then (("t"."properties" #> :p92::text[]) #>> '{}')::numeric end)) < 1e-300 then 0 else (case when jsonb_typeof(("t"."properties" #> :p93::text[])) = 'number' then (("t"."properties" #> :p94::text[]))::numeric
      when jsonb_typeof(("t"."properties" #> :p95::text[])) = 'string' and length((("t"."properties" #> :p96::text[]) #>> '{}')) <= :p97::int and (("t"."properties" #> :p98::text[]) #>> '{}') ~ :p99 and (("t"."properties" #> :p100::text[]) #>> '{}') !~ '[eE][+-]?[0-9]{5}' then (("t"."properties" #> :p101::text[]) #>> '{}')::numeric end) end)::float8 end) > :p102::float8)
),
thinning as (
  select (select capped from mode)
      or (not (select complete from mode)
          and (select count(*) from picked) > (select count(*) from kept)) as thinned
),
kept_stats as (
  select count(*)::int as c,
         case when count(*) <= :p103::int then 0 else sum((pg_column_size(kept.properties) + pg_column_size(kept.geom) + :p104::int)) end as bound
  from kept
),
-- `needsSample` and `keepBySample` in SQL: the first SAMPLE in `rk` order encoded when the bound passes.
keep as (
  select case when c <= :p105::int or bound <= :p106::float8 then c
    else least(c, greatest(1, floor(0.9 * :p107::float8 * :p108::float8 / greatest(1, (
      select octet_length(ST_AsMVT(q, :p109::text, :p110::int, 'geom', 'id'))
      from (
  select k.id, ST_AsMVTGeom(ST_Transform(k.geom, 3857), tile_box.env, :p111::int, :p112::int, true) as geom,
         ((case when jsonb_typeof(k.properties) <> 'object' then '{}'::jsonb
  when not jsonb_path_exists(k.properties, 'strict $.* ? (@.type() == "object" || @.type() == "array")', '{}', true)
    then k.properties
  else (select jsonb_object_agg(e.key, case when jsonb_typeof(e.value) in ('object', 'array')
                                            then to_jsonb(e.value::text) else e.value end)
        from jsonb_each(k.properties) e) end) || case when (select thinned from thinning) then jsonb_build_object(:p113::text, true) else '{}'::jsonb end) as attributes
  from (select * from kept where rk <= :p114::int order by id) k, tile_box) q
      where q.geom is not null)))))::int end as n, c
  from kept_stats
),
flags as (select (select thinned from thinning) or n < c as thinned from keep),
chosen as (select id, geom, properties from kept where rk <= (select n from keep) order by id)
select replace(encode(m.tile, 'base64'), chr(10), '') as tile, coalesce(octet_length(m.tile), 0) as bytes, m.n,
       (select thinned from flags) as thinned
from (
  select ST_AsMVT(q, :p115::text, :p116::int, 'geom', 'id') as tile, count(*)::int as n
  from (
  select k.id, ST_AsMVTGeom(ST_Transform(k.geom, 3857), tile_box.env, :p117::int, :p118::int, true) as geom,
         ((case when jsonb_typeof(k.properties) <> 'object' then '{}'::jsonb
  when not jsonb_path_exists(k.properties, 'strict $.* ? (@.type() == "object" || @.type() == "array")', '{}', true)
    then k.properties
  else (select jsonb_object_agg(e.key, case when jsonb_typeof(e.value) in ('object', 'array')
                                            then to_jsonb(e.value::text) else e.value end)
        from jsonb_each(k.properties) e) end) || case when (select thinned from flags) then jsonb_build_object(:p119::text, true) else '{}'::jsonb end) as attributes
  from chosen k, tile_box) q
  where q.geom is not null
) m;

-- parameters (119)
-- :p1 = 0.015625
-- :p2 = 4096
-- :p3 = 12
-- :p4 = 2048
-- :p5 = 1361
-- :p6 = -0.001373291015625
-- :p7 = 51.50788772102843
-- :p8 = 0.089263916015625
-- :p9 = 51.56426602441386
-- :p10 = "2024-02-01T00:00:00.000Z"
-- :p11 = "2024-02-01T00:00:00.000Z"
-- :p12 = "2024-01-01T00:00:00.000Z"
-- :p13 = "2024-01-01T00:00:00.000Z"
-- :p14 = ["kind"]
-- :p15 = "volcano"
-- :p16 = ["height"]
-- :p17 = ["height"]
-- :p18 = ["height"]
-- :p19 = ["height"]
-- :p20 = 1000
-- :p21 = ["height"]
-- :p22 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p23 = ["height"]
-- :p24 = ["height"]
-- :p25 = 1e+150
-- :p26 = ["height"]
-- :p27 = ["height"]
-- :p28 = ["height"]
-- :p29 = ["height"]
-- :p30 = 1000
-- :p31 = ["height"]
-- :p32 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p33 = ["height"]
-- :p34 = ["height"]
-- :p35 = ["height"]
-- :p36 = ["height"]
-- :p37 = ["height"]
-- :p38 = ["height"]
-- :p39 = 1000
-- :p40 = ["height"]
-- :p41 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p42 = ["height"]
-- :p43 = ["height"]
-- :p44 = 100
-- :p45 = 1025
-- :p46 = -0.001373291015625
-- :p47 = 720
-- :p48 = 51.50788772102843
-- :p49 = 0.089263916015625
-- :p50 = 720
-- :p51 = 51.56426602441386
-- :p52 = 4097
-- :p53 = 1024
-- :p54 = -0.001373291015625
-- :p55 = 720
-- :p56 = 51.50788772102843
-- :p57 = 0.089263916015625
-- :p58 = 720
-- :p59 = 51.56426602441386
-- :p60 = 4097
-- :p61 = 1024
-- :p62 = 12
-- :p63 = 1024
-- :p64 = 1024
-- :p65 = 1024
-- :p66 = 1024
-- :p67 = 1024
-- :p68 = "2024-02-01T00:00:00.000Z"
-- :p69 = "2024-02-01T00:00:00.000Z"
-- :p70 = "2024-01-01T00:00:00.000Z"
-- :p71 = "2024-01-01T00:00:00.000Z"
-- :p72 = ["kind"]
-- :p73 = "volcano"
-- :p74 = ["height"]
-- :p75 = ["height"]
-- :p76 = ["height"]
-- :p77 = ["height"]
-- :p78 = 1000
-- :p79 = ["height"]
-- :p80 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p81 = ["height"]
-- :p82 = ["height"]
-- :p83 = 1e+150
-- :p84 = ["height"]
-- :p85 = ["height"]
-- :p86 = ["height"]
-- :p87 = ["height"]
-- :p88 = 1000
-- :p89 = ["height"]
-- :p90 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p91 = ["height"]
-- :p92 = ["height"]
-- :p93 = ["height"]
-- :p94 = ["height"]
-- :p95 = ["height"]
-- :p96 = ["height"]
-- :p97 = 1000
-- :p98 = ["height"]
-- :p99 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p100 = ["height"]
-- :p101 = ["height"]
-- :p102 = 100
-- :p103 = 1024
-- :p104 = 24
-- :p105 = 1024
-- :p106 = 500000
-- :p107 = 500000
-- :p108 = 256
-- :p109 = "places"
-- :p110 = 4096
-- :p111 = 4096
-- :p112 = 64
-- :p113 = "_thinned"
-- :p114 = 256
-- :p115 = "places"
-- :p116 = 4096
-- :p117 = 4096
-- :p118 = 64
-- :p119 = "_thinned"
