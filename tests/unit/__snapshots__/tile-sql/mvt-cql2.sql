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
  where t.geom && ST_MakeEnvelope(:p6::float8, :p7::float8, :p8::float8, :p9::float8, 4326) and (ST_Intersects("t"."geom", ST_MakeEnvelope(:p10::float8, :p11::float8, :p12::float8, :p13::float8, :p14::int)) and (select ("cql2_v"."s1" in (:p15::text, :p16::text)) and ("cql2_v"."n2" > :p17::float8) from (select cql2_j.*, ("cql2_j"."j1" #>> '{}') as "s1", (case when abs((case when jsonb_typeof("cql2_j"."j2") = 'number' then ("cql2_j"."j2")::numeric
      when jsonb_typeof("cql2_j"."j2") = 'string' and length(("cql2_j"."j2" #>> '{}')) <= :p18::int and ("cql2_j"."j2" #>> '{}') ~ :p19 and ("cql2_j"."j2" #>> '{}') !~ '[eE][+-]?[0-9]{5}' then ("cql2_j"."j2" #>> '{}')::numeric end)) <= :p20::numeric then
(case when abs((case when jsonb_typeof("cql2_j"."j2") = 'number' then ("cql2_j"."j2")::numeric
      when jsonb_typeof("cql2_j"."j2") = 'string' and length(("cql2_j"."j2" #>> '{}')) <= :p21::int and ("cql2_j"."j2" #>> '{}') ~ :p22 and ("cql2_j"."j2" #>> '{}') !~ '[eE][+-]?[0-9]{5}' then ("cql2_j"."j2" #>> '{}')::numeric end)) < 1e-300 then 0 else (case when jsonb_typeof("cql2_j"."j2") = 'number' then ("cql2_j"."j2")::numeric
      when jsonb_typeof("cql2_j"."j2") = 'string' and length(("cql2_j"."j2" #>> '{}')) <= :p23::int and ("cql2_j"."j2" #>> '{}') ~ :p24 and ("cql2_j"."j2" #>> '{}') !~ '[eE][+-]?[0-9]{5}' then ("cql2_j"."j2" #>> '{}')::numeric end) end)::float8 end) as "n2" from (select ("t"."properties" #> :p25::text[]) as "j1", ("t"."properties" #> :p26::text[]) as "j2" offset 0) cql2_j offset 0) cql2_v))
  limit :p27::int
),
candidate_count as (
  select count(*) as c from candidates
),
all_candidates as (
  select id, geom, properties from candidates
  where (select c from candidate_count) <= :p28::int
),
hash_prefix as (
  select t.id, t.geom, ((t.id * 2654435761::bigint) % 4294967296::bigint) as h, (pg_column_size(t.properties) + pg_column_size(t.geom) + :p29::int) as b
  from "gd_7_1" t
  where (select c from candidate_count) > :p30::int and t.geom && ST_MakeEnvelope(:p31::float8, :p32::float8, :p33::float8, :p34::float8, 4326)
    and true and (ST_Intersects("t"."geom", ST_MakeEnvelope(:p35::float8, :p36::float8, :p37::float8, :p38::float8, :p39::int)) and (select ("cql2_v"."s1" in (:p40::text, :p41::text)) and ("cql2_v"."n2" > :p42::float8) from (select cql2_j.*, ("cql2_j"."j1" #>> '{}') as "s1", (case when abs((case when jsonb_typeof("cql2_j"."j2") = 'number' then ("cql2_j"."j2")::numeric
      when jsonb_typeof("cql2_j"."j2") = 'string' and length(("cql2_j"."j2" #>> '{}')) <= :p43::int and ("cql2_j"."j2" #>> '{}') ~ :p44 and ("cql2_j"."j2" #>> '{}') !~ '[eE][+-]?[0-9]{5}' then ("cql2_j"."j2" #>> '{}')::numeric end)) <= :p45::numeric then
(case when abs((case when jsonb_typeof("cql2_j"."j2") = 'number' then ("cql2_j"."j2")::numeric
      when jsonb_typeof("cql2_j"."j2") = 'string' and length(("cql2_j"."j2" #>> '{}')) <= :p46::int and ("cql2_j"."j2" #>> '{}') ~ :p47 and ("cql2_j"."j2" #>> '{}') !~ '[eE][+-]?[0-9]{5}' then ("cql2_j"."j2" #>> '{}')::numeric end)) < 1e-300 then 0 else (case when jsonb_typeof("cql2_j"."j2") = 'number' then ("cql2_j"."j2")::numeric
      when jsonb_typeof("cql2_j"."j2") = 'string' and length(("cql2_j"."j2" #>> '{}')) <= :p48::int and ("cql2_j"."j2" #>> '{}') ~ :p49 and ("cql2_j"."j2" #>> '{}') !~ '[eE][+-]?[0-9]{5}' then ("cql2_j"."j2" #>> '{}')::numeric end) end)::float8 end) as "n2" from (select ("t"."properties" #> :p50::text[]) as "j1", ("t"."properties" #> :p51::text[]) as "j2" offset 0) cql2_j offset 0) cql2_v))
  order by 3, 1
  limit :p52::int
),
thinned_ids as (
  select id, h, b from (
    select distinct on (pixel_key) id, h, b
    from (
      select hash_prefix.id, hash_prefix.h, hash_prefix.b,
             case when GeometryType(hash_prefix.geom) = 'POINT'
                  then (least(greatest(floor((ST_X(hash_prefix.geom) + 180) / 360 * :p53::float8 - :p54::float8), -256), 4400)::bigint + 256) * 8192 + (least(greatest(floor((0.5 - ln(tan(pi() / 4 + radians(greatest(least(ST_Y(hash_prefix.geom), 85.06), -85.06)) / 2)) / (2 * pi())) * :p55::float8 - :p56::float8), -256), 4400)::bigint + 256)
                  else -hash_prefix.id end as pixel_key
      from hash_prefix
    ) d
    order by pixel_key, h, id
  ) s
  order by h, id
  limit :p57::int
),
kept as (
  select id, geom, properties from all_candidates
  union all
  select t.id, t.geom, t.properties from "gd_7_1" t where t.id = any(array(select id from thinned_ids))
),
-- Not thinned: the candidates, ranked by hash only when the budget needs it.
all_stats as (
  select c, case when (select c from candidate_count) > :p58::int or c <= :p59::int then 0
    else (select sum((pg_column_size(candidates.properties) + pg_column_size(candidates.geom) + :p60::int)) from candidates) end as bound
  from candidate_count
),
all_n as (
  select
  case when c <= :p61::int or bound <= :p62::float8 then c
    else least(c, greatest(1, floor(0.9 * :p63::float8 * :p64::float8 / greatest(1, (
      select octet_length(ST_AsMVT(q, :p65::text, :p66::int, 'geom', 'id'))
      from (
  select k.id, ST_AsMVTGeom(ST_Transform(k.geom, 3857), tile_box.env, :p67::int, :p68::int, true) as geom,
         (case when jsonb_typeof(k.properties) <> 'object' then '{}'::jsonb
  when not jsonb_path_exists(k.properties, 'strict $.* ? (@.type() == "object" || @.type() == "array")', '{}', true)
    then k.properties
  else (select jsonb_object_agg(e.key, case when jsonb_typeof(e.value) in ('object', 'array')
                                            then to_jsonb(e.value::text) else e.value end)
        from jsonb_each(k.properties) e) end) as attributes
  from (select * from candidates order by ((id * 2654435761::bigint) % 4294967296::bigint), id limit :p69::int) k, tile_box) q where q.geom is not null)))))::bigint end as n
  from all_stats
),
-- Thinned: the kept ids in hash order, their rows read back for the first n only. (The prefix's sort
-- carries no more columns than it needs: one more can push its top-N heap past work_mem.)
thin as materialized (
  select id, b, row_number() over (order by h, id) as rn from thinned_ids where (select c from candidate_count) > :p70::int
),
-- A thinned tile's bound comes from its ranked rows' sizes (read with the ranking, `hash_prefix`).
thin_n as (
  select
  case when c <= :p71::int or b <= :p72::float8 then c
    else least(c, greatest(1, floor(0.9 * :p73::float8 * :p74::float8 / greatest(1, (
      select octet_length(ST_AsMVT(q, :p75::text, :p76::int, 'geom', 'id'))
      from (
  select k.id, ST_AsMVTGeom(ST_Transform(k.geom, 3857), tile_box.env, :p77::int, :p78::int, true) as geom,
         (case when jsonb_typeof(k.properties) <> 'object' then '{}'::jsonb
  when not jsonb_path_exists(k.properties, 'strict $.* ? (@.type() == "object" || @.type() == "array")', '{}', true)
    then k.properties
  else (select jsonb_object_agg(e.key, case when jsonb_typeof(e.value) in ('object', 'array')
                                            then to_jsonb(e.value::text) else e.value end)
        from jsonb_each(k.properties) e) end) as attributes
  from (select t.* from "gd_7_1" t
         where t.id = any(array(select id from thin where rn <= :p79::int)) order by t.id) k, tile_box) q where q.geom is not null)))))::bigint end as n
  from (select count(*) as c, coalesce(sum(b), 0) as b from thin) thin_count
),
chosen as (
  select id, geom, properties from candidates
  where not (select c from candidate_count) > :p80::int and (select n from all_n) >= (select c from all_stats)
  union all
  select id, geom, properties
  from (select * from candidates order by ((id * 2654435761::bigint) % 4294967296::bigint), id
        limit case when (select c from candidate_count) > :p81::int then 0 else (select n from all_n) end) f
  where not (select c from candidate_count) > :p82::int and (select n from all_n) < (select c from all_stats)
  union all
  (select t.id, t.geom, t.properties from "gd_7_1" t
   where (select c from candidate_count) > :p83::int and t.id = any(array(select id from thin where rn <= (select n from thin_n)))
   order by t.id)
)
select replace(encode(m.tile, 'base64'), chr(10), '') as tile, coalesce(octet_length(m.tile), 0) as bytes, m.n
from (
  select ST_AsMVT(q, :p84::text, :p85::int, 'geom', 'id') as tile, count(*)::int as n
  from (
  select k.id, ST_AsMVTGeom(ST_Transform(k.geom, 3857), tile_box.env, :p86::int, :p87::int, true) as geom,
         (case when jsonb_typeof(k.properties) <> 'object' then '{}'::jsonb
  when not jsonb_path_exists(k.properties, 'strict $.* ? (@.type() == "object" || @.type() == "array")', '{}', true)
    then k.properties
  else (select jsonb_object_agg(e.key, case when jsonb_typeof(e.value) in ('object', 'array')
                                            then to_jsonb(e.value::text) else e.value end)
        from jsonb_each(k.properties) e) end) as attributes
  from chosen k, tile_box) q
  where q.geom is not null
) m;

-- parameters (87)
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
-- :p28 = 1024
-- :p29 = 24
-- :p30 = 1024
-- :p31 = -0.001373291015625
-- :p32 = 51.50788772102843
-- :p33 = 0.089263916015625
-- :p34 = 51.56426602441386
-- :p35 = 0
-- :p36 = 0
-- :p37 = 1
-- :p38 = 1
-- :p39 = 4326
-- :p40 = "volcano"
-- :p41 = "crater"
-- :p42 = 100
-- :p43 = 1000
-- :p44 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p45 = 1e+150
-- :p46 = 1000
-- :p47 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p48 = 1000
-- :p49 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p50 = ["kind"]
-- :p51 = ["height"]
-- :p52 = 2048
-- :p53 = 16777216
-- :p54 = 8388608
-- :p55 = 16777216
-- :p56 = 5574656
-- :p57 = 1024
-- :p58 = 1024
-- :p59 = 1024
-- :p60 = 24
-- :p61 = 1024
-- :p62 = 500000
-- :p63 = 500000
-- :p64 = 256
-- :p65 = "places"
-- :p66 = 4096
-- :p67 = 4096
-- :p68 = 64
-- :p69 = 256
-- :p70 = 1024
-- :p71 = 1024
-- :p72 = 500000
-- :p73 = 500000
-- :p74 = 256
-- :p75 = "places"
-- :p76 = 4096
-- :p77 = 4096
-- :p78 = 64
-- :p79 = 256
-- :p80 = 1024
-- :p81 = 1024
-- :p82 = 1024
-- :p83 = 1024
-- :p84 = "places"
-- :p85 = 4096
-- :p86 = 4096
-- :p87 = 64
