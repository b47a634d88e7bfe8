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
)
select r.id, ST_AsGeoJSON(r.g, 0) as g, r.attributes, r.b
from (
  select k.id, (pg_column_size(k.properties) + pg_column_size(k.geom) + :p21::int) as b,
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

-- parameters (21)
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
-- :p21 = 24
