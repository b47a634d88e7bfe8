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
pixels as materialized (select id, mz from ((select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p46::float8, :p47::float8, :p48::float8, :p49::float8, 4326)) union all (select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p50::float8, :p51::float8, :p52::float8, :p53::float8, 4326)) union all (select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p54::float8, :p55::float8, :p56::float8, :p57::float8, 4326)) union all (select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p58::float8, :p59::float8, :p60::float8, :p61::float8, 4326)) union all (select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p62::float8, :p63::float8, :p64::float8, :p65::float8, 4326)) union all (select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p66::float8, :p67::float8, :p68::float8, :p69::float8, 4326)) union all (select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p70::float8, :p71::float8, :p72::float8, :p73::float8, 4326)) union all (select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p74::float8, :p75::float8, :p76::float8, :p77::float8, 4326)) union all (select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p78::float8, :p79::float8, :p80::float8, :p81::float8, 4326)) union all (select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p82::float8, :p83::float8, :p84::float8, :p85::float8, 4326)) union all (select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p86::float8, :p87::float8, :p88::float8, :p89::float8, 4326)) union all (select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p90::float8, :p91::float8, :p92::float8, :p93::float8, 4326)) union all (select o.id, o.mz from "gd_7_1_ovr" o where o.k && ST_MakeEnvelope(:p94::float8, :p95::float8, :p96::float8, :p97::float8, 4326))) u where (select c from candidate_count) > :p98::int limit :p99::int),
pixel_count as (select count(*)::int as c from pixels),
mode as (
  select p.c > :p100::int as capped, p.c <= :p101::int and c.c <= :p102::int as complete
  from pixel_count p, candidate_count c
),
picked as materialized (
  select id, rn from (select p.id, row_number() over (order by p.mz, ((p.id * 2654435761::bigint) % 4294967296::bigint), p.id) as rn from pixels p) r
  where not (select complete from mode) and rn <= :p103::int
),
kept as materialized (
  (select c.id, c.geom, c.properties, row_number() over (order by ((c.id * 2654435761::bigint) % 4294967296::bigint), c.id) as rk
   from candidates c where (select complete from mode)
   order by rk limit :p104::int)
union all
  (select t.id, t.geom, t.properties, row_number() over (order by p.rn) as rk
   from unnest(array(select id from picked order by id), array(select rn from picked order by id)) p(id, rn)
   join "gd_7_1" t on t.id = p.id
   where ("t"."start_time" <= (:p105::text)::timestamptz or ("t"."start_time" is null and "t"."end_time" <= (:p106::text)::timestamptz)) and ("t"."end_time" >= (:p107::text)::timestamptz or ("t"."end_time" is null and "t"."start_time" >= (:p108::text)::timestamptz)) and (("t"."properties" #> :p109::text[]) #>> '{}') = :p110::text and (case when abs((case when jsonb_typeof(("t"."properties" #> :p111::text[])) = 'number' then (("t"."properties" #> :p112::text[]))::numeric
      when jsonb_typeof(("t"."properties" #> :p113::text[])) = 'string' and length((("t"."properties" #> :p114::text[]) #>> '{}')) <= :p115::int and (("t"."properties" #> :p116::text[]) #>> '{}') ~ :p117 and (("t"."properties" #> :p118::text[]) #>> '{}') !~ '[eE][+-]?[0-9]{5}' then (("t"."properties" #> :p119::text[]) #>> '{}')::numeric end)) <= :p120::numeric then
(case when abs((case when jsonb_typeof(("t"."properties" #> :p121::text[])) = 'number' then (("t"."properties" #> :p122::text[]))::numeric
      when jsonb_typeof(("t"."properties" #> :p123::text[])) = 'string' and length((("t"."properties" #> :p124::text[]) #>> '{}')) <= :p125::int and (("t"."properties" #> :p126::text[]) #>> '{}') ~ :p127 and (("t"."properties" #> :p128::text[]) #>> '{}') !~ '[eE][+-]?[0-9]{5}' then (("t"."properties" #> :p129::text[]) #>> '{}')::numeric end)) < 1e-300 then 0 else (case when jsonb_typeof(("t"."properties" #> :p130::text[])) = 'number' then (("t"."properties" #> :p131::text[]))::numeric
      when jsonb_typeof(("t"."properties" #> :p132::text[])) = 'string' and length((("t"."properties" #> :p133::text[]) #>> '{}')) <= :p134::int and (("t"."properties" #> :p135::text[]) #>> '{}') ~ :p136 and (("t"."properties" #> :p137::text[]) #>> '{}') !~ '[eE][+-]?[0-9]{5}' then (("t"."properties" #> :p138::text[]) #>> '{}')::numeric end) end)::float8 end) > :p139::float8)
),
thinning as (
  select (select capped from mode)
      or (not (select complete from mode)
          and (select count(*) from picked) > (select count(*) from kept)) as thinned
),
kept_stats as (
  select count(*)::int as c,
         case when count(*) <= :p140::int then 0 else sum((pg_column_size(kept.properties) + pg_column_size(kept.geom) + :p141::int)) end as bound
  from kept
),
-- `needsSample` and `keepBySample` in SQL: the first SAMPLE in `rk` order encoded when the bound passes.
keep as (
  select case when c <= :p142::int or bound <= :p143::float8 then c
    else least(c, greatest(1, floor(0.9 * :p144::float8 * :p145::float8 / greatest(1, (
      select octet_length(ST_AsMVT(q, :p146::text, :p147::int, 'geom', 'id'))
      from (
  select k.id, ST_AsMVTGeom(ST_Transform(k.geom, 3857), tile_box.env, :p148::int, :p149::int, true) as geom,
         ((case when jsonb_typeof(k.properties) <> 'object' then '{}'::jsonb
  when not jsonb_path_exists(k.properties, 'strict $.* ? (@.type() == "object" || @.type() == "array")', '{}', true)
    then k.properties
  else (select jsonb_object_agg(e.key, case when jsonb_typeof(e.value) in ('object', 'array')
                                            then to_jsonb(e.value::text) else e.value end)
        from jsonb_each(k.properties) e) end) || case when (select thinned from thinning) then jsonb_build_object(:p150::text, true) else '{}'::jsonb end) as attributes
  from (select * from kept where rk <= :p151::int order by id) k, tile_box) q
      where q.geom is not null)))))::int end as n, c
  from kept_stats
),
flags as (select (select thinned from thinning) or n < c as thinned from keep),
chosen as (select id, geom, properties from kept where rk <= (select n from keep) order by id)
select replace(encode(m.tile, 'base64'), chr(10), '') as tile, coalesce(octet_length(m.tile), 0) as bytes, m.n,
       (select thinned from flags) as thinned
from (
  select ST_AsMVT(q, :p152::text, :p153::int, 'geom', 'id') as tile, count(*)::int as n
  from (
  select k.id, ST_AsMVTGeom(ST_Transform(k.geom, 3857), tile_box.env, :p154::int, :p155::int, true) as geom,
         ((case when jsonb_typeof(k.properties) <> 'object' then '{}'::jsonb
  when not jsonb_path_exists(k.properties, 'strict $.* ? (@.type() == "object" || @.type() == "array")', '{}', true)
    then k.properties
  else (select jsonb_object_agg(e.key, case when jsonb_typeof(e.value) in ('object', 'array')
                                            then to_jsonb(e.value::text) else e.value end)
        from jsonb_each(k.properties) e) end) || case when (select thinned from flags) then jsonb_build_object(:p156::text, true) else '{}'::jsonb end) as attributes
  from chosen k, tile_box) q
  where q.geom is not null
) m;

-- parameters (156)
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
-- :p47 = 51.50788772102843
-- :p48 = 0.089263916015625
-- :p49 = 51.56426602441386
-- :p50 = 719.9986267089844
-- :p51 = 51.50788772102843
-- :p52 = 720.0892639160156
-- :p53 = 51.56426602441386
-- :p54 = 1439.9986267089844
-- :p55 = 51.50788772102843
-- :p56 = 1440.0892639160156
-- :p57 = 51.56426602441386
-- :p58 = 2159.9986267089844
-- :p59 = 51.50788772102843
-- :p60 = 2160.0892639160156
-- :p61 = 51.56426602441386
-- :p62 = 2879.9986267089844
-- :p63 = 51.50788772102843
-- :p64 = 2880.0892639160156
-- :p65 = 51.56426602441386
-- :p66 = 3599.9986267089844
-- :p67 = 51.50788772102843
-- :p68 = 3600.0892639160156
-- :p69 = 51.56426602441386
-- :p70 = 4319.998626708984
-- :p71 = 51.50788772102843
-- :p72 = 4320.089263916016
-- :p73 = 51.56426602441386
-- :p74 = 5039.998626708984
-- :p75 = 51.50788772102843
-- :p76 = 5040.089263916016
-- :p77 = 51.56426602441386
-- :p78 = 5759.998626708984
-- :p79 = 51.50788772102843
-- :p80 = 5760.089263916016
-- :p81 = 51.56426602441386
-- :p82 = 6479.998626708984
-- :p83 = 51.50788772102843
-- :p84 = 6480.089263916016
-- :p85 = 51.56426602441386
-- :p86 = 7199.998626708984
-- :p87 = 51.50788772102843
-- :p88 = 7200.089263916016
-- :p89 = 51.56426602441386
-- :p90 = 7919.998626708984
-- :p91 = 51.50788772102843
-- :p92 = 7920.089263916016
-- :p93 = 51.56426602441386
-- :p94 = 8639.998626708984
-- :p95 = 51.50788772102843
-- :p96 = 8640.089263916016
-- :p97 = 51.56426602441386
-- :p98 = 1024
-- :p99 = 4097
-- :p100 = 1024
-- :p101 = 1024
-- :p102 = 1024
-- :p103 = 1024
-- :p104 = 1024
-- :p105 = "2024-02-01T00:00:00.000Z"
-- :p106 = "2024-02-01T00:00:00.000Z"
-- :p107 = "2024-01-01T00:00:00.000Z"
-- :p108 = "2024-01-01T00:00:00.000Z"
-- :p109 = ["kind"]
-- :p110 = "volcano"
-- :p111 = ["height"]
-- :p112 = ["height"]
-- :p113 = ["height"]
-- :p114 = ["height"]
-- :p115 = 1000
-- :p116 = ["height"]
-- :p117 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p118 = ["height"]
-- :p119 = ["height"]
-- :p120 = 1e+150
-- :p121 = ["height"]
-- :p122 = ["height"]
-- :p123 = ["height"]
-- :p124 = ["height"]
-- :p125 = 1000
-- :p126 = ["height"]
-- :p127 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p128 = ["height"]
-- :p129 = ["height"]
-- :p130 = ["height"]
-- :p131 = ["height"]
-- :p132 = ["height"]
-- :p133 = ["height"]
-- :p134 = 1000
-- :p135 = ["height"]
-- :p136 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p137 = ["height"]
-- :p138 = ["height"]
-- :p139 = 100
-- :p140 = 1024
-- :p141 = 24
-- :p142 = 1024
-- :p143 = 500000
-- :p144 = 500000
-- :p145 = 256
-- :p146 = "places"
-- :p147 = 4096
-- :p148 = 4096
-- :p149 = 64
-- :p150 = "_thinned"
-- :p151 = 256
-- :p152 = "places"
-- :p153 = 4096
-- :p154 = 4096
-- :p155 = 64
-- :p156 = "_thinned"
