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
  where t.geom && ST_MakeEnvelope(:p6::float8, :p7::float8, :p8::float8, :p9::float8, 4326) and true
  limit :p10::int
),
candidate_count as (
  select count(*) as c from candidates
),
all_candidates as (
  select id, geom, properties from candidates
  where (select c from candidate_count) <= :p11::int
),
hash_prefix as (
  select t.id, t.geom, ((t.id * 2654435761::bigint) % 4294967296::bigint) as h, (pg_column_size(t.properties) + pg_column_size(t.geom) + :p12::int) as b
  from "gd_7_1" t
  where (select c from candidate_count) > :p13::int and t.geom && ST_MakeEnvelope(:p14::float8, :p15::float8, :p16::float8, :p17::float8, 4326)
    and true and true
  order by 3, 1
  limit :p18::int
),
thinned_ids as (
  select id, h, b from (
    select distinct on (pixel_key) id, h, b
    from (
      select hash_prefix.id, hash_prefix.h, hash_prefix.b,
             case when GeometryType(hash_prefix.geom) = 'POINT'
                  then (least(greatest(floor((ST_X(hash_prefix.geom) + 180) / 360 * :p19::float8 - :p20::float8), -256), 4400)::bigint + 256) * 8192 + (least(greatest(floor((0.5 - ln(tan(pi() / 4 + radians(greatest(least(ST_Y(hash_prefix.geom), 85.06), -85.06)) / 2)) / (2 * pi())) * :p21::float8 - :p22::float8), -256), 4400)::bigint + 256)
                  else -hash_prefix.id end as pixel_key
      from hash_prefix
    ) d
    order by pixel_key, h, id
  ) s
  order by h, id
  limit :p23::int
),
kept as (
  select id, geom, properties from all_candidates
  union all
  select t.id, t.geom, t.properties from "gd_7_1" t where t.id = any(array(select id from thinned_ids))
),
-- Not thinned: the candidates, ranked by hash only when the budget needs it.
all_stats as (
  select c, case when (select c from candidate_count) > :p24::int or c <= :p25::int then 0
    else (select sum((pg_column_size(candidates.properties) + pg_column_size(candidates.geom) + :p26::int)) from candidates) end as bound
  from candidate_count
),
all_n as (
  select
  case when c <= :p27::int or bound <= :p28::float8 then c
    else least(c, greatest(1, floor(0.9 * :p29::float8 * :p30::float8 / greatest(1, (
      select octet_length(ST_AsMVT(q, :p31::text, :p32::int, 'geom', 'id'))
      from (
  select k.id, ST_AsMVTGeom(ST_Transform(k.geom, 3857), tile_box.env, :p33::int, :p34::int, true) as geom,
         jsonb_build_object(:p35::text,
    case when jsonb_typeof((k.properties #> :p36::text[])) in ('object', 'array') then to_jsonb((k.properties #> :p37::text[])::text) else (k.properties #> :p38::text[]) end) || jsonb_build_object(:p39::text,
    case when jsonb_typeof((k.properties #> :p40::text[])) in ('object', 'array') then to_jsonb((k.properties #> :p41::text[])::text) else (k.properties #> :p42::text[]) end) as attributes
  from (select * from candidates order by ((id * 2654435761::bigint) % 4294967296::bigint), id limit :p43::int) k, tile_box) q where q.geom is not null)))))::bigint end as n
  from all_stats
),
-- Thinned: the kept ids in hash order, their rows read back for the first n only. (The prefix's sort
-- carries no more columns than it needs: one more can push its top-N heap past work_mem.)
thin as materialized (
  select id, b, row_number() over (order by h, id) as rn from thinned_ids where (select c from candidate_count) > :p44::int
),
-- A thinned tile's bound comes from its ranked rows' sizes (read with the ranking, `hash_prefix`).
thin_n as (
  select
  case when c <= :p45::int or b <= :p46::float8 then c
    else least(c, greatest(1, floor(0.9 * :p47::float8 * :p48::float8 / greatest(1, (
      select octet_length(ST_AsMVT(q, :p49::text, :p50::int, 'geom', 'id'))
      from (
  select k.id, ST_AsMVTGeom(ST_Transform(k.geom, 3857), tile_box.env, :p51::int, :p52::int, true) as geom,
         jsonb_build_object(:p53::text,
    case when jsonb_typeof((k.properties #> :p54::text[])) in ('object', 'array') then to_jsonb((k.properties #> :p55::text[])::text) else (k.properties #> :p56::text[]) end) || jsonb_build_object(:p57::text,
    case when jsonb_typeof((k.properties #> :p58::text[])) in ('object', 'array') then to_jsonb((k.properties #> :p59::text[])::text) else (k.properties #> :p60::text[]) end) as attributes
  from (select t.* from "gd_7_1" t
         where t.id = any(array(select id from thin where rn <= :p61::int)) order by t.id) k, tile_box) q where q.geom is not null)))))::bigint end as n
  from (select count(*) as c, coalesce(sum(b), 0) as b from thin) thin_count
),
chosen as (
  select id, geom, properties from candidates
  where not (select c from candidate_count) > :p62::int and (select n from all_n) >= (select c from all_stats)
  union all
  select id, geom, properties
  from (select * from candidates order by ((id * 2654435761::bigint) % 4294967296::bigint), id
        limit case when (select c from candidate_count) > :p63::int then 0 else (select n from all_n) end) f
  where not (select c from candidate_count) > :p64::int and (select n from all_n) < (select c from all_stats)
  union all
  (select t.id, t.geom, t.properties from "gd_7_1" t
   where (select c from candidate_count) > :p65::int and t.id = any(array(select id from thin where rn <= (select n from thin_n)))
   order by t.id)
)
select replace(encode(m.tile, 'base64'), chr(10), '') as tile, coalesce(octet_length(m.tile), 0) as bytes, m.n
from (
  select ST_AsMVT(q, :p66::text, :p67::int, 'geom', 'id') as tile, count(*)::int as n
  from (
  select k.id, ST_AsMVTGeom(ST_Transform(k.geom, 3857), tile_box.env, :p68::int, :p69::int, true) as geom,
         jsonb_build_object(:p70::text,
    case when jsonb_typeof((k.properties #> :p71::text[])) in ('object', 'array') then to_jsonb((k.properties #> :p72::text[])::text) else (k.properties #> :p73::text[]) end) || jsonb_build_object(:p74::text,
    case when jsonb_typeof((k.properties #> :p75::text[])) in ('object', 'array') then to_jsonb((k.properties #> :p76::text[])::text) else (k.properties #> :p77::text[]) end) as attributes
  from chosen k, tile_box) q
  where q.geom is not null
) m;

-- parameters (77)
-- :p1 = 0.015625
-- :p2 = 4096
-- :p3 = 12
-- :p4 = 2048
-- :p5 = 1361
-- :p6 = -0.001373291015625
-- :p7 = 51.50788772102843
-- :p8 = 0.089263916015625
-- :p9 = 51.56426602441386
-- :p10 = 1025
-- :p11 = 1024
-- :p12 = 24
-- :p13 = 1024
-- :p14 = -0.001373291015625
-- :p15 = 51.50788772102843
-- :p16 = 0.089263916015625
-- :p17 = 51.56426602441386
-- :p18 = 2048
-- :p19 = 16777216
-- :p20 = 8388608
-- :p21 = 16777216
-- :p22 = 5574656
-- :p23 = 1024
-- :p24 = 1024
-- :p25 = 1024
-- :p26 = 24
-- :p27 = 1024
-- :p28 = 500000
-- :p29 = 500000
-- :p30 = 256
-- :p31 = "places"
-- :p32 = 4096
-- :p33 = 4096
-- :p34 = 64
-- :p35 = "kind"
-- :p36 = ["kind"]
-- :p37 = ["kind"]
-- :p38 = ["kind"]
-- :p39 = "size.height"
-- :p40 = ["size","height"]
-- :p41 = ["size","height"]
-- :p42 = ["size","height"]
-- :p43 = 256
-- :p44 = 1024
-- :p45 = 1024
-- :p46 = 500000
-- :p47 = 500000
-- :p48 = 256
-- :p49 = "places"
-- :p50 = 4096
-- :p51 = 4096
-- :p52 = 64
-- :p53 = "kind"
-- :p54 = ["kind"]
-- :p55 = ["kind"]
-- :p56 = ["kind"]
-- :p57 = "size.height"
-- :p58 = ["size","height"]
-- :p59 = ["size","height"]
-- :p60 = ["size","height"]
-- :p61 = 256
-- :p62 = 1024
-- :p63 = 1024
-- :p64 = 1024
-- :p65 = 1024
-- :p66 = "places"
-- :p67 = 4096
-- :p68 = 4096
-- :p69 = 64
-- :p70 = "kind"
-- :p71 = ["kind"]
-- :p72 = ["kind"]
-- :p73 = ["kind"]
-- :p74 = "size.height"
-- :p75 = ["size","height"]
-- :p76 = ["size","height"]
-- :p77 = ["size","height"]
