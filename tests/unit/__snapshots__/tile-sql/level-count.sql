select count(*)::int as c from (
      select 1 from "gd_7_1_ovr" t
      where t.geom && ST_MakeEnvelope(:p1::float8, :p2::float8, :p3::float8, :p4::float8, 4326) and ((t.id * 2654435761::bigint) % 4294967296::bigint) < 268435456::bigint and true
      limit :p5::int) s;

-- parameters (5)
-- :p1 = -0.001373291015625
-- :p2 = 51.50788772102843
-- :p3 = 0.089263916015625
-- :p4 = 51.56426602441386
-- :p5 = 2048
