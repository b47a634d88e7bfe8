-- Rank overviews of the geodatasets' features for thinned tiles (docs/tiles.md, "Rank overview"): the
-- features of rank level 1 (h(id) = (id * 2654435761) mod 2^32 below 2^30, a quarter of the layer), all
-- their columns, copied to `<table>_ovr` in the order (level descending, geometry): each level's features
-- lie together and in space order, so a thinned tile reads a few contiguous pages instead of one heap page
-- per feature. Level k (1..6) of the overview has a partial GiST index on geom for h(id) < 2^32 / 4^k,
-- made for every level that holds at least 8,192 features. Statement triggers on the layer's table keep
-- the overview exact through every insert, update, delete and truncate. Replaces the partial indexes on
-- the layers' own tables (0017).

create or replace function geodataset_rank_overview_insert() returns trigger language plpgsql as $$
begin
  execute format(
    'insert into %I (id, geom, properties, start_time, end_time, group_id, feature_id)
     select id, geom, properties, start_time, end_time, group_id, feature_id from new_rows
     where ((id * 2654435761::bigint) %% 4294967296::bigint) < 1073741824::bigint',
    tg_table_name || '_ovr');
  return null;
end $$;

create or replace function geodataset_rank_overview_delete() returns trigger language plpgsql as $$
begin
  execute format('delete from %I where id in (select id from old_rows)', tg_table_name || '_ovr');
  return null;
end $$;

create or replace function geodataset_rank_overview_update() returns trigger language plpgsql as $$
begin
  execute format('delete from %I where id in (select id from old_rows)', tg_table_name || '_ovr');
  execute format(
    'insert into %I (id, geom, properties, start_time, end_time, group_id, feature_id)
     select id, geom, properties, start_time, end_time, group_id, feature_id from new_rows
     where ((id * 2654435761::bigint) %% 4294967296::bigint) < 1073741824::bigint',
    tg_table_name || '_ovr');
  return null;
end $$;

create or replace function geodataset_rank_overview_truncate() returns trigger language plpgsql as $$
begin
  execute format('truncate %I', tg_table_name || '_ovr');
  return null;
end $$;

-- Makes the overview of `t` when it has none (rows, primary key, triggers), then the level indexes
-- 1..levels it lacks (found by their name's `_rank<k>_idx` ending: a recreate renames the tables, not
-- their indexes). lib/geodatasets/rank.ts calls it after a load or an append; `levels` < 1 does nothing.
create or replace function geodataset_rank_overview(t text, levels int) returns void language plpgsql as $$
declare
  o text := t || '_ovr';
  k int;
begin
  if levels < 1 then
    return;
  end if;
  if to_regclass(o) is null then
    execute format(
      'create table %I as
       select id, geom, properties, start_time, end_time, group_id, feature_id from %I
       where ((id * 2654435761::bigint) %% 4294967296::bigint) < 1073741824::bigint
       order by case
         when ((id * 2654435761::bigint) %% 4294967296::bigint) < 1048576::bigint then 6
         when ((id * 2654435761::bigint) %% 4294967296::bigint) < 4194304::bigint then 5
         when ((id * 2654435761::bigint) %% 4294967296::bigint) < 16777216::bigint then 4
         when ((id * 2654435761::bigint) %% 4294967296::bigint) < 67108864::bigint then 3
         when ((id * 2654435761::bigint) %% 4294967296::bigint) < 268435456::bigint then 2
         else 1 end desc, geom',
      o, t);
    execute format('alter table %I add primary key (id)', o);
    -- The rank's statistics: without them the planner takes a third of the rows for any level and may
    -- scan the whole overview instead of the level's index.
    execute format('create statistics %I on ((id * 2654435761::bigint) %% 4294967296::bigint) from %I',
      o || '_rank_stats', o);
    execute format('create trigger rank_overview_insert after insert on %I referencing new table as new_rows
      for each statement execute function geodataset_rank_overview_insert()', t);
    execute format('create trigger rank_overview_update after update on %I referencing old table as old_rows
      new table as new_rows for each statement execute function geodataset_rank_overview_update()', t);
    execute format('create trigger rank_overview_delete after delete on %I referencing old table as old_rows
      for each statement execute function geodataset_rank_overview_delete()', t);
    execute format('create trigger rank_overview_truncate after truncate on %I
      for each statement execute function geodataset_rank_overview_truncate()', t);
  end if;
  for k in 1..least(levels, 6) loop
    if not exists (select 1 from pg_indexes where tablename = o and indexname like '%\_rank' || k || '\_idx') then
      execute format(
        'create index %I on %I using gist (geom) where ((id * 2654435761::bigint) %% 4294967296::bigint) < %s::bigint',
        o || '_rank' || k || '_idx', o, (2::bigint ^ (32 - 2 * k))::bigint);
    end if;
  end loop;
  execute format('analyze %I', o);
end $$;

-- The layers loaded before: their overviews, and the level indexes of 0017 on their own tables dropped.
do $$
declare
  d record;
  i record;
  k int;
begin
  for d in select table_name, num_features from geodatasets loop
    if to_regclass(d.table_name) is null then
      continue;
    end if;
    for i in select indexname from pg_indexes
             where tablename = d.table_name and indexname ~ '_rank[0-9]+_idx$' loop
      execute format('drop index if exists %I', i.indexname);
    end loop;
    k := 0;
    while k < 6 and d.num_features::float8 / (4 ^ (k + 1)) >= 8192 loop
      k := k + 1;
    end loop;
    perform geodataset_rank_overview(d.table_name, k);
  end loop;
end $$;
