select q.id, '{"type":"Feature","geometry":' || ST_AsGeoJSON(q.geom) || ',"properties":'
  || (case when q.p = '{}'::jsonb then '{"_":' || q.meta || '}'
when q.p ? '_' then (q.p || jsonb_build_object('_', (q.meta)::jsonb))::text
else left((q.p)::text, -1) || ',"_":' || q.meta || '}' end) || '}' as f
from (
  select t.id, t.geom, coalesce((select jsonb_object_agg(s.k, s.v) from (values (:p1::text, ("t"."properties" #> :p2::text[])), (:p3::text, (select jsonb_object_agg(s.k, s.v) from (values (:p4::text, ("t"."properties" #> :p5::text[]))) s(k, v) where s.v is not null))) s(k, v) where s.v is not null), '{}'::jsonb) as p, '{"idx":' || t.id || (case when t.start_time is null then '' else :p6::text ||
  floor(extract(epoch from t.start_time) * 1000)::bigint::text || '"' end) || (case when t.end_time is null then '' else :p7::text ||
  floor(extract(epoch from t.end_time) * 1000)::bigint::text || '"' end) || '' || '}' as meta
  from "gd_7_1" t where ("t"."start_time" <= (:p8::text)::timestamptz or ("t"."start_time" is null and "t"."end_time" <= (:p9::text)::timestamptz)) and ("t"."end_time" >= (:p10::text)::timestamptz or ("t"."end_time" is null and "t"."start_time" >= (:p11::text)::timestamptz)) and (("t"."properties" #> :p12::text[]) #>> '{}') = :p13::text and (case when abs((case when jsonb_typeof(("t"."properties" #> :p14::text[])) = 'number' then (("t"."properties" #> :p15::text[]))::numeric
      when jsonb_typeof(("t"."properties" #> :p16::text[])) = 'string' and length((("t"."properties" #> :p17::text[]) #>> '{}')) <= :p18::int and (("t"."properties" #> :p19::text[]) #>> '{}') ~ :p20 and (("t"."properties" #> :p21::text[]) #>> '{}') !~ '[eE][+-]?[0-9]{5}' then (("t"."properties" #> :p22::text[]) #>> '{}')::numeric end)) <= :p23::numeric then
(case when abs((case when jsonb_typeof(("t"."properties" #> :p24::text[])) = 'number' then (("t"."properties" #> :p25::text[]))::numeric
      when jsonb_typeof(("t"."properties" #> :p26::text[])) = 'string' and length((("t"."properties" #> :p27::text[]) #>> '{}')) <= :p28::int and (("t"."properties" #> :p29::text[]) #>> '{}') ~ :p30 and (("t"."properties" #> :p31::text[]) #>> '{}') !~ '[eE][+-]?[0-9]{5}' then (("t"."properties" #> :p32::text[]) #>> '{}')::numeric end)) < 1e-300 then 0 else (case when jsonb_typeof(("t"."properties" #> :p33::text[])) = 'number' then (("t"."properties" #> :p34::text[]))::numeric
      when jsonb_typeof(("t"."properties" #> :p35::text[])) = 'string' and length((("t"."properties" #> :p36::text[]) #>> '{}')) <= :p37::int and (("t"."properties" #> :p38::text[]) #>> '{}') ~ :p39 and (("t"."properties" #> :p40::text[]) #>> '{}') !~ '[eE][+-]?[0-9]{5}' then (("t"."properties" #> :p41::text[]) #>> '{}')::numeric end) end)::float8 end) > :p42::float8 and t.tableoid = :p43::oid
  order by t.id
  limit :p44 offset :p45
) "q"
order by q.id;

-- parameters (45)
-- :p1 = "kind"
-- :p2 = ["kind"]
-- :p3 = "size"
-- :p4 = "height"
-- :p5 = ["size","height"]
-- :p6 = ",\"start_time\":\""
-- :p7 = ",\"end_time\":\""
-- :p8 = "2024-02-01T00:00:00.000Z"
-- :p9 = "2024-02-01T00:00:00.000Z"
-- :p10 = "2024-01-01T00:00:00.000Z"
-- :p11 = "2024-01-01T00:00:00.000Z"
-- :p12 = ["kind"]
-- :p13 = "volcano"
-- :p14 = ["height"]
-- :p15 = ["height"]
-- :p16 = ["height"]
-- :p17 = ["height"]
-- :p18 = 1000
-- :p19 = ["height"]
-- :p20 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p21 = ["height"]
-- :p22 = ["height"]
-- :p23 = 1e+150
-- :p24 = ["height"]
-- :p25 = ["height"]
-- :p26 = ["height"]
-- :p27 = ["height"]
-- :p28 = 1000
-- :p29 = ["height"]
-- :p30 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p31 = ["height"]
-- :p32 = ["height"]
-- :p33 = ["height"]
-- :p34 = ["height"]
-- :p35 = ["height"]
-- :p36 = ["height"]
-- :p37 = 1000
-- :p38 = ["height"]
-- :p39 = "^-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$"
-- :p40 = ["height"]
-- :p41 = ["height"]
-- :p42 = 100
-- :p43 = 16384
-- :p44 = 100
-- :p45 = 0
