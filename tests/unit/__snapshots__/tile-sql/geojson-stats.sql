select q.id, '{"type":"Feature","geometry":' || ST_AsGeoJSON(q.geom) || ',"properties":'
  || (case when q.p = '{}'::jsonb then '{"_":' || q.meta || '}'
when q.p ? '_' then (q.p || jsonb_build_object('_', (q.meta)::jsonb))::text
else left((q.p)::text, -1) || ',"_":' || q.meta || '}' end) || '}' as f
from (
  select t.id, t.geom, "t"."properties" as p, '{"idx":' || t.id || (case when t.start_time is null then '' else :p1::text ||
  floor(extract(epoch from t.start_time) * 1000)::bigint::text || '"' end) || (case when t.end_time is null then '' else :p2::text ||
  floor(extract(epoch from t.end_time) * 1000)::bigint::text || '"' end) || ',"stats":' || t.stats::text || '}' as meta
  from (select n.id, n.geom, n.properties, n.start_time, n.end_time, n.group_id, n.feature_id,
  jsonb_build_object(:p3::text, jsonb_build_object('min', min("n"."s0") over w, 'max', max("n"."s0") over w,
  'avg', avg("n"."s0") over w, 'sum', sum("n"."s0") over w, 'stddev', stddev_pop("n"."s0") over w)) as stats, max(n.id) over w as keep
from (select r.*, "r"."v"[:p4::int] as "s0" from (select m.*, ST_AsEWKB("m"."geom") as group_key,
  (select array_agg((case when abs((case when jsonb_typeof("p"."j") = 'number' then ("p"."j")::numeric
      when jsonb_typeof("p"."j") = 'string' and length(("p"."j" #>> '{}')) <= :p5::int and ("p"."j" #>> '{}') ~ :p6 and ("p"."j" #>> '{}') !~ '[eE][+-]?[0-9]{5}' then ("p"."j" #>> '{}')::numeric end)) <= :p7::numeric then
(case when abs((case when jsonb_typeof("p"."j") = 'number' then ("p"."j")::numeric
      when jsonb_typeof("p"."j") = 'string' and length(("p"."j" #>> '{}')) <= :p8::int and ("p"."j" #>> '{}') ~ :p9 and ("p"."j" #>> '{}') !~ '[eE][+-]?[0-9]{5}' then ("p"."j" #>> '{}')::numeric end)) < 1e-300 then 0 else (case when jsonb_typeof("p"."j") = 'number' then ("p"."j")::numeric
      when jsonb_typeof("p"."j") = 'string' and length(("p"."j" #>> '{}')) <= :p10::int and ("p"."j" #>> '{}') ~ :p11 and ("p"."j" #>> '{}') !~ '[eE][+-]?[0-9]{5}' then ("p"."j" #>> '{}')::numeric end) end)::float8 end) order by p.i) from (select f.i,
  "m"."properties" #> f.path as j from (values (:p12::int, :p13::text[])) f(i, path) offset 0) p) as v from "gd_7_1" m where (ST_Intersects("m"."geom", ST_MakeEnvelope(:p14::float8, :p15::float8, :p16::float8, :p17::float8, :p18::int)) and (select ("cql2_v"."s1" in (:p19::text, :p20::text)) and ("cql2_v"."n2" > :p21::float8) from (select cql2_j.*, ("cql2_j"."j1" #>> '{}') as "s1", (case when abs((case when jsonb_typeof("cql2_j"."j2") = 'number' then ("cql2_j"."j2")::numeric
      when jsonb_typeof("cql2_j"."j2") = 'string' and length(("cql2_j"."j2" #>> '{}')) <= :p22::int and ("cql2_j"."j2" #>> '{}') ~ :p23 and ("cql2_j"."j2" #>> '{}') !~ '[eE][+-]?[0-9]{5}' then ("cql2_j"."j2" #>> '{}')::numeric end)) <= :p24::numeric then
(case when abs((case when jsonb_typeof("cql2_j"."j2") = 'number' then ("cql2_j"."j2")::numeric
      when jsonb_typeof("cql2_j"."j2") = 'string' and length(("cql2_j"."j2" #>> '{}')) <= :p25::int and ("cql2_j"."j2" #>> '{}') ~ :p26 and ("cql2_j"."j2" #>> '{}') !~ '[eE][+-]?[0-9]{5}' then ("cql2_j"."j2" #>> '{}')::numeric end)) < 1e-300 then 0 else (case when jsonb_typeof("cql2_j"."j2") = 'number' then ("cql2_j"."j2")::numeric
      when jsonb_typeof("cql2_j"."j2") = 'string' and length(("cql2_j"."j2" #>> '{}')) <= :p27::int and ("cql2_j"."j2" #>> '{}') ~ :p28 and ("cql2_j"."j2" #>> '{}') !~ '[eE][+-]?[0-9]{5}' then ("cql2_j"."j2" #>> '{}')::numeric end) end)::float8 end) as "n2" from (select ("m"."properties" #> :p29::text[]) as "j1", ("m"."properties" #> :p30::text[]) as "j2" offset 0) cql2_j offset 0) cql2_v))) r) n
window w as (partition by n.group_key)) t where true
  order by t.id
  limit :p31 offset :p32
) "q"
order by q.id;

-- parameters (32)
-- :p1 = ",\"start_time\":\""
-- :p2 = ",\"end_time\":\""
-- :p3 = "height"
-- :p4 = 1
-- :p5 = 1000
-- :p6 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p7 = 1e+150
-- :p8 = 1000
-- :p9 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p10 = 1000
-- :p11 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p12 = 1
-- :p13 = ["height"]
-- :p14 = 0
-- :p15 = 0
-- :p16 = 1
-- :p17 = 1
-- :p18 = 4326
-- :p19 = "volcano"
-- :p20 = "crater"
-- :p21 = 100
-- :p22 = 1000
-- :p23 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p24 = 1e+150
-- :p25 = 1000
-- :p26 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p27 = 1000
-- :p28 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p29 = ["kind"]
-- :p30 = ["height"]
-- :p31 = 10
-- :p32 = 20
