select q.id, '{"type":"Feature","geometry":' || ST_AsGeoJSON(q.geom) || ',"properties":'
  || (case when q.p = '{}'::jsonb then '{"_":' || q.meta || '}'
when q.p ? '_' then (q.p || jsonb_build_object('_', (q.meta)::jsonb))::text
else left((q.p)::text, -1) || ',"_":' || q.meta || '}' end) || '}' as f
from (
  select t.id, t.geom, "t"."properties" as p, '{"idx":' || t.id || (case when t.start_time is null then '' else :p1::text ||
  floor(extract(epoch from t.start_time) * 1000)::bigint::text || '"' end) || (case when t.end_time is null then '' else :p2::text ||
  floor(extract(epoch from t.end_time) * 1000)::bigint::text || '"' end) || '' || '}' as meta
  from "gd_7_1" t where true and t.id > :p3::bigint and t.id <= :p4::bigint and t.tableoid = :p5::oid
  order by t.id
  limit :p6 offset :p7
) "q"
order by q.id;

-- parameters (7)
-- :p1 = ",\"start_time\":\""
-- :p2 = ",\"end_time\":\""
-- :p3 = 4000
-- :p4 = 54000
-- :p5 = 16384
-- :p6 = 2000
-- :p7 = 0
