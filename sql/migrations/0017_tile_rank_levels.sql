-- Rank levels of the geodatasets' features for thinned tiles (docs/tiles.md, "Rank levels"): level k
-- (1..6) holds the features whose h(id) = (id * 2654435761) mod 2^32 is below 2^32 / 4^k, with a partial
-- GiST index on geom for exactly that predicate, made for every level that holds at least 8,192 features.
-- New tables get them from lib/geodatasets/rank.ts (the same predicate text); made here for existing ones.
do $$
declare
  d record;
  k int;
begin
  for d in select table_name, num_features from geodatasets loop
    if to_regclass(d.table_name) is null then
      continue;
    end if;
    k := 1;
    while k <= 6 and d.num_features::float8 / (4 ^ k) >= 8192 loop
      execute format(
        'create index if not exists %1$I on %2$I using gist (geom) where ((id * 2654435761::bigint) %% 4294967296::bigint) < %3$s::bigint',
        d.table_name || '_rank' || k || '_idx', d.table_name, (2::bigint ^ (32 - 2 * k))::bigint);
      k := k + 1;
    end loop;
  end loop;
end $$;
