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
  where false
  limit :p6::int
),
candidate_count as (
  select :p7::bigint as c
),
all_candidates as (
  select id, geom, properties from candidates
  where (select c from candidate_count) <= :p8::int
),
hash_prefix as (
  select t.id, t.geom, ((t.id * 2654435761::bigint) % 4294967296::bigint) as h, (pg_column_size(t.properties) + pg_column_size(t.geom) + :p9::int) as b
  from "gd_7_1_ovr" t
  where (select c from candidate_count) > :p10::int and t.geom && ST_MakeEnvelope(:p11::float8, :p12::float8, :p13::float8, :p14::float8, 4326)
    and ((t.id * 2654435761::bigint) % 4294967296::bigint) < 268435456::bigint and true
  order by 3, 1
  limit :p15::int
),
thinned_ids as (
  select id, h, b from (
    select distinct on (pixel_key) id, h, b
    from (
      select hash_prefix.id, hash_prefix.h, hash_prefix.b,
             case when GeometryType(hash_prefix.geom) = 'POINT'
                  then (least(greatest(floor((ST_X(hash_prefix.geom) + 180) / 360 * :p16::float8 - :p17::float8), -256), 4400)::bigint + 256) * 8192 + (least(greatest(floor((0.5 - ln(tan(pi() / 4 + radians(greatest(least(ST_Y(hash_prefix.geom), 85.06), -85.06)) / 2)) / (2 * pi())) * :p18::float8 - :p19::float8), -256), 4400)::bigint + 256)
                  else -hash_prefix.id end as pixel_key
      from hash_prefix
    ) d
    order by pixel_key, h, id
  ) s
  order by h, id
  limit :p20::int
),
kept as (
  select id, geom, properties from all_candidates
  union all
  select t.id, t.geom, t.properties from "gd_7_1_ovr" t where t.id = any(array(select id from thinned_ids))
),
-- Not thinned: the candidates, ranked by hash only when the budget needs it.
all_stats as (
  select c, case when (select c from candidate_count) > :p21::int or c <= :p22::int then 0
    else (select sum((pg_column_size(candidates.properties) + pg_column_size(candidates.geom) + :p23::int)) from candidates) end as bound
  from candidate_count
),
all_n as (
  select
  case when c <= :p24::int or bound <= :p25::float8 then c
    else least(c, greatest(1, floor(0.9 * :p26::float8 * :p27::float8 / greatest(1, (
      select octet_length(ST_AsMVT(q, :p28::text, :p29::int, 'geom', 'id'))
      from (
  select k.id, ST_AsMVTGeom(ST_Transform(k.geom, 3857), tile_box.env, :p30::int, :p31::int, true) as geom,
         (case when jsonb_typeof(k.properties) <> 'object' then '{}'::jsonb
  when not jsonb_path_exists(k.properties, 'strict $.* ? (@.type() == "object" || @.type() == "array")', '{}', true)
    then k.properties
  else (select jsonb_object_agg(e.key, case when jsonb_typeof(e.value) in ('object', 'array')
                                            then to_jsonb(e.value::text) else e.value end)
        from jsonb_each(k.properties) e) end) as attributes
  from (select * from candidates order by ((id * 2654435761::bigint) % 4294967296::bigint), id limit :p32::int) k, tile_box) q where q.geom is not null)))))::bigint end as n
  from all_stats
),
-- Thinned: the kept ids in hash order, their rows read back for the first n only. (The prefix's sort
-- carries no more columns than it needs: one more can push its top-N heap past work_mem.)
thin as materialized (
  select id, b, row_number() over (order by h, id) as rn from thinned_ids where (select c from candidate_count) > :p33::int
),
-- A thinned tile's bound comes from its ranked rows' sizes (read with the ranking, `hash_prefix`).
thin_n as (
  select
  case when c <= :p34::int or b <= :p35::float8 then c
    else least(c, greatest(1, floor(0.9 * :p36::float8 * :p37::float8 / greatest(1, (
      select octet_length(ST_AsMVT(q, :p38::text, :p39::int, 'geom', 'id'))
      from (
  select k.id, ST_AsMVTGeom(ST_Transform(k.geom, 3857), tile_box.env, :p40::int, :p41::int, true) as geom,
         (case when jsonb_typeof(k.properties) <> 'object' then '{}'::jsonb
  when not jsonb_path_exists(k.properties, 'strict $.* ? (@.type() == "object" || @.type() == "array")', '{}', true)
    then k.properties
  else (select jsonb_object_agg(e.key, case when jsonb_typeof(e.value) in ('object', 'array')
                                            then to_jsonb(e.value::text) else e.value end)
        from jsonb_each(k.properties) e) end) as attributes
  from (select t.* from "gd_7_1_ovr" t
         where t.id = any(array(select id from thin where rn <= :p42::int)) order by t.id) k, tile_box) q where q.geom is not null)))))::bigint end as n
  from (select count(*) as c, coalesce(sum(b), 0) as b from thin) thin_count
),
chosen as (
  select id, geom, properties from candidates
  where not (select c from candidate_count) > :p43::int and (select n from all_n) >= (select c from all_stats)
  union all
  select id, geom, properties
  from (select * from candidates order by ((id * 2654435761::bigint) % 4294967296::bigint), id
        limit case when (select c from candidate_count) > :p44::int then 0 else (select n from all_n) end) f
  where not (select c from candidate_count) > :p45::int and (select n from all_n) < (select c from all_stats)
  union all
  (select t.id, t.geom, t.properties from "gd_7_1_ovr" t
   where (select c from candidate_count) > :p46::int and t.id = any(array(select id from thin where rn <= (select n from thin_n)))
   order by t.id)
)
select replace(encode(m.tile, 'base64'), chr(10), '') as tile, coalesce(octet_length(m.tile), 0) as bytes, m.n
from (
  select ST_AsMVT(q, :p47::text, :p48::int, 'geom', 'id') as tile, count(*)::int as n
  from (
  select k.id, ST_AsMVTGeom(ST_Transform(k.geom, 3857), tile_box.env, :p49::int, :p50::int, true) as geom,
         (case when jsonb_typeof(k.properties) <> 'object' then '{}'::jsonb
  when not jsonb_path_exists(k.properties, 'strict $.* ? (@.type() == "object" || @.type() == "array")', '{}', true)
    then k.properties
  else (select jsonb_object_agg(e.key, case when jsonb_typeof(e.value) in ('object', 'array')
                                            then to_jsonb(e.value::text) else e.value end)
        from jsonb_each(k.properties) e) end) as attributes
  from chosen k, tile_box) q
  where q.geom is not null
) m;

-- parameters (50)
-- :p1 = 0.015625
-- :p2 = 4096
-- :p3 = 12
-- :p4 = 2048
-- :p5 = 1361
-- :p6 = 1025
-- :p7 = 1025
-- :p8 = 1024
-- :p9 = 24
-- :p10 = 1024
-- :p11 = -0.001373291015625
-- :p12 = 51.50788772102843
-- :p13 = 0.089263916015625
-- :p14 = 51.56426602441386
-- :p15 = 2048
-- :p16 = 16777216
-- :p17 = 8388608
-- :p18 = 16777216
-- :p19 = 5574656
-- :p20 = 1024
-- :p21 = 1024
-- :p22 = 1024
-- :p23 = 24
-- :p24 = 1024
-- :p25 = 500000
-- :p26 = 500000
-- :p27 = 256
-- :p28 = "places"
-- :p29 = 4096
-- :p30 = 4096
-- :p31 = 64
-- :p32 = 256
-- :p33 = 1024
-- :p34 = 1024
-- :p35 = 500000
-- :p36 = 500000
-- :p37 = 256
-- :p38 = "places"
-- :p39 = 4096
-- :p40 = 4096
-- :p41 = 64
-- :p42 = 256
-- :p43 = 1024
-- :p44 = 1024
-- :p45 = 1024
-- :p46 = 1024
-- :p47 = "places"
-- :p48 = 4096
-- :p49 = 4096
-- :p50 = 64
