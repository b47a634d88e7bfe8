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
from (select m.*, ST_AsEWKB("m"."geom") as group_key, (case when abs((case when jsonb_typeof(("m"."properties" #> :p4::text[])) = 'number' then (("m"."properties" #> :p5::text[]))::numeric
      when jsonb_typeof(("m"."properties" #> :p6::text[])) = 'string' and length((("m"."properties" #> :p7::text[]) #>> '{}')) <= :p8::int and (("m"."properties" #> :p9::text[]) #>> '{}') ~ :p10 and (("m"."properties" #> :p11::text[]) #>> '{}') !~ '[eE][+-]?[0-9]{5}' then (("m"."properties" #> :p12::text[]) #>> '{}')::numeric end)) <= :p13::numeric then
(case when abs((case when jsonb_typeof(("m"."properties" #> :p14::text[])) = 'number' then (("m"."properties" #> :p15::text[]))::numeric
      when jsonb_typeof(("m"."properties" #> :p16::text[])) = 'string' and length((("m"."properties" #> :p17::text[]) #>> '{}')) <= :p18::int and (("m"."properties" #> :p19::text[]) #>> '{}') ~ :p20 and (("m"."properties" #> :p21::text[]) #>> '{}') !~ '[eE][+-]?[0-9]{5}' then (("m"."properties" #> :p22::text[]) #>> '{}')::numeric end)) < 1e-300 then 0 else (case when jsonb_typeof(("m"."properties" #> :p23::text[])) = 'number' then (("m"."properties" #> :p24::text[]))::numeric
      when jsonb_typeof(("m"."properties" #> :p25::text[])) = 'string' and length((("m"."properties" #> :p26::text[]) #>> '{}')) <= :p27::int and (("m"."properties" #> :p28::text[]) #>> '{}') ~ :p29 and (("m"."properties" #> :p30::text[]) #>> '{}') !~ '[eE][+-]?[0-9]{5}' then (("m"."properties" #> :p31::text[]) #>> '{}')::numeric end) end)::float8 end) as "s0" from "gd_7_1" m where (ST_Intersects("m"."geom", ST_MakeEnvelope(:p32::float8, :p33::float8, :p34::float8, :p35::float8, :p36::int)) and (select ("cql2_v"."s1" in (:p37::text, :p38::text)) and ("cql2_v"."n2" > :p39::float8) from (select cql2_j.*, ("cql2_j"."j1" #>> '{}') as "s1", (case when abs((case when jsonb_typeof("cql2_j"."j2") = 'number' then ("cql2_j"."j2")::numeric
      when jsonb_typeof("cql2_j"."j2") = 'string' and length(("cql2_j"."j2" #>> '{}')) <= :p40::int and ("cql2_j"."j2" #>> '{}') ~ :p41 and ("cql2_j"."j2" #>> '{}') !~ '[eE][+-]?[0-9]{5}' then ("cql2_j"."j2" #>> '{}')::numeric end)) <= :p42::numeric then
(case when abs((case when jsonb_typeof("cql2_j"."j2") = 'number' then ("cql2_j"."j2")::numeric
      when jsonb_typeof("cql2_j"."j2") = 'string' and length(("cql2_j"."j2" #>> '{}')) <= :p43::int and ("cql2_j"."j2" #>> '{}') ~ :p44 and ("cql2_j"."j2" #>> '{}') !~ '[eE][+-]?[0-9]{5}' then ("cql2_j"."j2" #>> '{}')::numeric end)) < 1e-300 then 0 else (case when jsonb_typeof("cql2_j"."j2") = 'number' then ("cql2_j"."j2")::numeric
      when jsonb_typeof("cql2_j"."j2") = 'string' and length(("cql2_j"."j2" #>> '{}')) <= :p45::int and ("cql2_j"."j2" #>> '{}') ~ :p46 and ("cql2_j"."j2" #>> '{}') !~ '[eE][+-]?[0-9]{5}' then ("cql2_j"."j2" #>> '{}')::numeric end) end)::float8 end) as "n2" from (select ("m"."properties" #> :p47::text[]) as "j1", ("m"."properties" #> :p48::text[]) as "j2" offset 0) cql2_j offset 0) cql2_v))) n
window w as (partition by n.group_key)) t where true
  order by t.id
  limit :p49 offset :p50
) "q"
order by q.id;

-- parameters (50)
-- :p1 = ",\"start_time\":\""
-- :p2 = ",\"end_time\":\""
-- :p3 = "height"
-- :p4 = ["height"]
-- :p5 = ["height"]
-- :p6 = ["height"]
-- :p7 = ["height"]
-- :p8 = 1000
-- :p9 = ["height"]
-- :p10 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p11 = ["height"]
-- :p12 = ["height"]
-- :p13 = 1e+150
-- :p14 = ["height"]
-- :p15 = ["height"]
-- :p16 = ["height"]
-- :p17 = ["height"]
-- :p18 = 1000
-- :p19 = ["height"]
-- :p20 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p21 = ["height"]
-- :p22 = ["height"]
-- :p23 = ["height"]
-- :p24 = ["height"]
-- :p25 = ["height"]
-- :p26 = ["height"]
-- :p27 = 1000
-- :p28 = ["height"]
-- :p29 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p30 = ["height"]
-- :p31 = ["height"]
-- :p32 = 0
-- :p33 = 0
-- :p34 = 1
-- :p35 = 1
-- :p36 = 4326
-- :p37 = "volcano"
-- :p38 = "crater"
-- :p39 = 100
-- :p40 = 1000
-- :p41 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p42 = 1e+150
-- :p43 = 1000
-- :p44 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p45 = 1000
-- :p46 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p47 = ["kind"]
-- :p48 = ["height"]
-- :p49 = 10
-- :p50 = 20
