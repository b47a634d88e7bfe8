with
tile_box as (
  select e.env,
         ST_Expand(e.env, (ST_XMax(e.env) - ST_XMin(e.env)) * :p1::float8)::box2d as clip,
         :p2::float8 / (ST_XMax(e.env) - ST_XMin(e.env)) as s,
         ST_XMin(e.env) as xmin, ST_YMax(e.env) as ymax
  from (select ST_TileEnvelope(:p3::int, :p4::int, :p5::int) as env) e
),
candidates as materialized (
  select t.id, t.geom, t.properties from "gd_7_1" t
  where t.geom && ST_MakeEnvelope(:p6::float8, :p7::float8, :p8::float8, :p9::float8, 4326) and ("t"."start_time" <= (:p10::text)::timestamptz or ("t"."start_time" is null and "t"."end_time" <= (:p11::text)::timestamptz)) and ("t"."end_time" >= (:p12::text)::timestamptz or ("t"."end_time" is null and "t"."start_time" >= (:p13::text)::timestamptz)) and (("t"."properties" #> :p14::text[]) #>> '{}') = :p15::text and (case when abs((case when jsonb_typeof(("t"."properties" #> :p16::text[])) = 'number' then (("t"."properties" #> :p17::text[]))::numeric
      when jsonb_typeof(("t"."properties" #> :p18::text[])) = 'string' and length((("t"."properties" #> :p19::text[]) #>> '{}')) <= :p20::int and (("t"."properties" #> :p21::text[]) #>> '{}') ~ :p22 and (("t"."properties" #> :p23::text[]) #>> '{}') !~ '[eE][+-]?[0-9]{5}' then (("t"."properties" #> :p24::text[]) #>> '{}')::numeric end)) <= :p25::numeric then
(case when abs((case when jsonb_typeof(("t"."properties" #> :p26::text[])) = 'number' then (("t"."properties" #> :p27::text[]))::numeric
      when jsonb_typeof(("t"."properties" #> :p28::text[])) = 'string' and length((("t"."properties" #> :p29::text[]) #>> '{}')) <= :p30::int and (("t"."properties" #> :p31::text[]) #>> '{}') ~ :p32 and (("t"."properties" #> :p33::text[]) #>> '{}') !~ '[eE][+-]?[0-9]{5}' then (("t"."properties" #> :p34::text[]) #>> '{}')::numeric end)) < 1e-300 then 0 else (case when jsonb_typeof(("t"."properties" #> :p35::text[])) = 'number' then (("t"."properties" #> :p36::text[]))::numeric
      when jsonb_typeof(("t"."properties" #> :p37::text[])) = 'string' and length((("t"."properties" #> :p38::text[]) #>> '{}')) <= :p39::int and (("t"."properties" #> :p40::text[]) #>> '{}') ~ :p41 and (("t"."properties" #> :p42::text[]) #>> '{}') !~ '[eE][+-]?[0-9]{5}' then (("t"."properties" #> :p43::text[]) #>> '{}')::numeric end) end)::float8 end) > :p44::float8
  limit :p45::int
),
candidate_count as (
  select count(*) as c from candidates
),
all_candidates as (
  select id, geom, properties from candidates
  where (select c from candidate_count) <= :p46::int
),
hash_prefix as (
  select t.id, t.geom, ((t.id * 2654435761::bigint) % 4294967296::bigint) as h, (pg_column_size(t.properties) + pg_column_size(t.geom) + :p47::int) as b
  from "gd_7_1" t
  where (select c from candidate_count) > :p48::int and t.geom && ST_MakeEnvelope(:p49::float8, :p50::float8, :p51::float8, :p52::float8, 4326)
    and true and ("t"."start_time" <= (:p53::text)::timestamptz or ("t"."start_time" is null and "t"."end_time" <= (:p54::text)::timestamptz)) and ("t"."end_time" >= (:p55::text)::timestamptz or ("t"."end_time" is null and "t"."start_time" >= (:p56::text)::timestamptz)) and (("t"."properties" #> :p57::text[]) #>> '{}') = :p58::text and (case when abs((case when jsonb_typeof(("t"."properties" #> :p59::text[])) = 'number' then (("t"."properties" #> :p60::text[]))::numeric
      when jsonb_typeof(("t"."properties" #> :p61::text[])) = 'string' and length((("t"."properties" #> :p62::text[]) #>> '{}')) <= :p63::int and (("t"."properties" #> :p64::text[]) #>> '{}') ~ :p65 and (("t"."properties" #> :p66::text[]) #>> '{}') !~ '[eE][+-]?[0-9]{5}' then (("t"."properties" #> :p67::text[]) #>> '{}')::numeric end)) <= :p68::numeric then
(case when abs((case when jsonb_typeof(("t"."properties" #> :p69::text[])) = 'number' then (("t"."properties" #> :p70::text[]))::numeric
      when jsonb_typeof(("t"."properties" #> :p71::text[])) = 'string' and length((("t"."properties" #> :p72::text[]) #>> '{}')) <= :p73::int and (("t"."properties" #> :p74::text[]) #>> '{}') ~ :p75 and (("t"."properties" #> :p76::text[]) #>> '{}') !~ '[eE][+-]?[0-9]{5}' then (("t"."properties" #> :p77::text[]) #>> '{}')::numeric end)) < 1e-300 then 0 else (case when jsonb_typeof(("t"."properties" #> :p78::text[])) = 'number' then (("t"."properties" #> :p79::text[]))::numeric
      when jsonb_typeof(("t"."properties" #> :p80::text[])) = 'string' and length((("t"."properties" #> :p81::text[]) #>> '{}')) <= :p82::int and (("t"."properties" #> :p83::text[]) #>> '{}') ~ :p84 and (("t"."properties" #> :p85::text[]) #>> '{}') !~ '[eE][+-]?[0-9]{5}' then (("t"."properties" #> :p86::text[]) #>> '{}')::numeric end) end)::float8 end) > :p87::float8
  order by 3, 1
  limit :p88::int
),
thinned_ids as (
  select id, h, b from (
    select distinct on (pixel_key) id, h, b
    from (
      select hash_prefix.id, hash_prefix.h, hash_prefix.b,
             case when GeometryType(hash_prefix.geom) = 'POINT'
                  then (least(greatest(floor((ST_X(hash_prefix.geom) + 180) / 360 * :p89::float8 - :p90::float8), -256), 4400)::bigint + 256) * 8192 + (least(greatest(floor((0.5 - ln(tan(pi() / 4 + radians(greatest(least(ST_Y(hash_prefix.geom), 85.06), -85.06)) / 2)) / (2 * pi())) * :p91::float8 - :p92::float8), -256), 4400)::bigint + 256)
                  else -hash_prefix.id end as pixel_key
      from hash_prefix
    ) d
    order by pixel_key, h, id
  ) s
  order by h, id
  limit :p93::int
),
kept as (
  select id, geom, properties from all_candidates
  union all
  select t.id, t.geom, t.properties from "gd_7_1" t where t.id = any(array(select id from thinned_ids))
),
-- Not thinned: the candidates, ranked by hash only when the budget needs it.
all_stats as (
  select c, case when (select c from candidate_count) > :p94::int or c <= :p95::int then 0
    else (select sum((pg_column_size(candidates.properties) + pg_column_size(candidates.geom) + :p96::int)) from candidates) end as bound
  from candidate_count
),
all_n as (
  select
  case when c <= :p97::int or bound <= :p98::float8 then c
    else least(c, greatest(1, floor(0.9 * :p99::float8 * :p100::float8 / greatest(1, (
      select octet_length(ST_AsMVT(q, :p101::text, :p102::int, 'geom', 'id'))
      from (
  select k.id, ST_AsMVTGeom(ST_Transform(k.geom, 3857), tile_box.env, :p103::int, :p104::int, true) as geom,
         (case when jsonb_typeof(k.properties) <> 'object' then '{}'::jsonb
  when not jsonb_path_exists(k.properties, 'strict $.* ? (@.type() == "object" || @.type() == "array")', '{}', true)
    then k.properties
  else (select jsonb_object_agg(e.key, case when jsonb_typeof(e.value) in ('object', 'array')
                                            then to_jsonb(e.value::text) else e.value end)
        from jsonb_each(k.properties) e) end) as attributes
  from (select * from candidates order by ((id * 2654435761::bigint) % 4294967296::bigint), id limit :p105::int) k, tile_box) q where q.geom is not null)))))::bigint end as n
  from all_stats
),
-- Thinned: the kept ids in hash order, their rows read back for the first n only. (The prefix's sort
-- carries no more columns than it needs: one more can push its top-N heap past work_mem.)
thin as materialized (
  select id, b, row_number() over (order by h, id) as rn from thinned_ids where (select c from candidate_count) > :p106::int
),
-- A thinned tile's bound comes from its ranked rows' sizes (read with the ranking, `hash_prefix`).
thin_n as (
  select
  case when c <= :p107::int or b <= :p108::float8 then c
    else least(c, greatest(1, floor(0.9 * :p109::float8 * :p110::float8 / greatest(1, (
      select octet_length(ST_AsMVT(q, :p111::text, :p112::int, 'geom', 'id'))
      from (
  select k.id, ST_AsMVTGeom(ST_Transform(k.geom, 3857), tile_box.env, :p113::int, :p114::int, true) as geom,
         (case when jsonb_typeof(k.properties) <> 'object' then '{}'::jsonb
  when not jsonb_path_exists(k.properties, 'strict $.* ? (@.type() == "object" || @.type() == "array")', '{}', true)
    then k.properties
  else (select jsonb_object_agg(e.key, case when jsonb_typeof(e.value) in ('object', 'array')
                                            then to_jsonb(e.value::text) else e.value end)
        from jsonb_each(k.properties) e) end) as attributes
  from (select t.* from "gd_7_1" t
         where t.id = any(array(select id from thin where rn <= :p115::int)) order by t.id) k, tile_box) q where q.geom is not null)))))::bigint end as n
  from (select count(*) as c, coalesce(sum(b), 0) as b from thin) thin_count
),
chosen as (
  select id, geom, properties from candidates
  where not (select c from candidate_count) > :p116::int and (select n from all_n) >= (select c from all_stats)
  union all
  select id, geom, properties
  from (select * from candidates order by ((id * 2654435761::bigint) % 4294967296::bigint), id
        limit case when (select c from candidate_count) > :p117::int then 0 else (select n from all_n) end) f
  where not (select c from candidate_count) > :p118::int and (select n from all_n) < (select c from all_stats)
  union all
  (select t.id, t.geom, t.properties from "gd_7_1" t
   where (select c from candidate_count) > :p119::int and t.id = any(array(select id from thin where rn <= (select n from thin_n)))
   order by t.id)
)
select replace(encode(m.tile, 'base64'), chr(10), '') as tile, coalesce(octet_length(m.tile), 0) as bytes, m.n
from (
  select ST_AsMVT(q, :p120::text, :p121::int, 'geom', 'id') as tile, count(*)::int as n
  from (
  select k.id, ST_AsMVTGeom(ST_Transform(k.geom, 3857), tile_box.env, :p122::int, :p123::int, true) as geom,
         (case when jsonb_typeof(k.properties) <> 'object' then '{}'::jsonb
  when not jsonb_path_exists(k.properties, 'strict $.* ? (@.type() == "object" || @.type() == "array")', '{}', true)
    then k.properties
  else (select jsonb_object_agg(e.key, case when jsonb_typeof(e.value) in ('object', 'array')
                                            then to_jsonb(e.value::text) else e.value end)
        from jsonb_each(k.properties) e) end) as attributes
  from chosen k, tile_box) q
  where q.geom is not null
) m;

-- parameters (123)
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
-- :p46 = 1024
-- :p47 = 24
-- :p48 = 1024
-- :p49 = -0.001373291015625
-- :p50 = 51.50788772102843
-- :p51 = 0.089263916015625
-- :p52 = 51.56426602441386
-- :p53 = "2024-02-01T00:00:00.000Z"
-- :p54 = "2024-02-01T00:00:00.000Z"
-- :p55 = "2024-01-01T00:00:00.000Z"
-- :p56 = "2024-01-01T00:00:00.000Z"
-- :p57 = ["kind"]
-- :p58 = "volcano"
-- :p59 = ["height"]
-- :p60 = ["height"]
-- :p61 = ["height"]
-- :p62 = ["height"]
-- :p63 = 1000
-- :p64 = ["height"]
-- :p65 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p66 = ["height"]
-- :p67 = ["height"]
-- :p68 = 1e+150
-- :p69 = ["height"]
-- :p70 = ["height"]
-- :p71 = ["height"]
-- :p72 = ["height"]
-- :p73 = 1000
-- :p74 = ["height"]
-- :p75 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p76 = ["height"]
-- :p77 = ["height"]
-- :p78 = ["height"]
-- :p79 = ["height"]
-- :p80 = ["height"]
-- :p81 = ["height"]
-- :p82 = 1000
-- :p83 = ["height"]
-- :p84 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p85 = ["height"]
-- :p86 = ["height"]
-- :p87 = 100
-- :p88 = 2048
-- :p89 = 16777216
-- :p90 = 8388608
-- :p91 = 16777216
-- :p92 = 5574656
-- :p93 = 1024
-- :p94 = 1024
-- :p95 = 1024
-- :p96 = 24
-- :p97 = 1024
-- :p98 = 500000
-- :p99 = 500000
-- :p100 = 256
-- :p101 = "places"
-- :p102 = 4096
-- :p103 = 4096
-- :p104 = 64
-- :p105 = 256
-- :p106 = 1024
-- :p107 = 1024
-- :p108 = 500000
-- :p109 = 500000
-- :p110 = 256
-- :p111 = "places"
-- :p112 = 4096
-- :p113 = 4096
-- :p114 = 64
-- :p115 = 256
-- :p116 = 1024
-- :p117 = 1024
-- :p118 = 1024
-- :p119 = 1024
-- :p120 = "places"
-- :p121 = 4096
-- :p122 = 4096
-- :p123 = 64
