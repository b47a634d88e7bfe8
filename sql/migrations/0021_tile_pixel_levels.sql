-- Pixel levels of the geodatasets' features for vector tiles (docs/tiles.md, "Pixel levels"). Every
-- feature gets the zoom `mz` (0..23) from which it is the first feature of its pixel: the layer's features
-- are ordered along a Z-order curve of their Web Mercator pixel at zoom 22 (256-pixel tiles: 2^30 pixels a
-- side), so that every pixel of every zoom is one run of that order, and a feature is the first of its
-- zoom-z pixel exactly when the feature before it lies in another zoom-z pixel; `mz` is one more than the
-- deepest zoom at which the two share a pixel (0 when they share none, 23 when they share the zoom-22
-- pixel). The features with `mz <= z` are therefore one per occupied pixel of zoom z, and each zoom's set
-- holds the one before it. A line or polygon also gets, at most, the first zoom at which its extent spans
-- a pixel (`zs`), so no feature larger than a pixel is left out while smaller ones stay.
--
-- `<table>_ovr` holds, for every feature, its key (the Z-order text `gh`, a geohash of the pixel, and the
-- pixel `x`, `y`), `zs`, `mz` and `k`: its bounding box moved by 720° × mz in longitude, so that one GiST
-- index serves every level (a tile reads level j with the box moved by 720° × j). Statement triggers keep
-- it exact through every write: a feature's `mz` depends only on the feature before it in the order, so a
-- write recomputes the rows it wrote and the ones right after them. Replaces the rank overviews of 0018.

-- The key of a geometry: its bounding box's centre as a pixel of zoom 22, Z-ordered as a geohash of the
-- pixel's centre in dyadic coordinates (exactly their interleaved bits: a centre is never on a geohash
-- cell's edge), and the zoom from which its extent spans a pixel (23 for a point). Inlined where it is used (SQL, immutable, not strict).
create or replace function geodataset_px_key(g geometry)
returns table (x int, y int, zs smallint, gh text) language sql immutable parallel safe as $$
  select s.x, s.y, s.zs,
         ST_GeoHash(ST_MakePoint((s.x + 0.5) * (360.0 / 1073741824) - 180, (s.y + 0.5) * (180.0 / 1073741824) - 90), 12) collate "C"
  from (
    select least(greatest(floor(((ST_XMin(g) + ST_XMax(g)) / 2 + 180) / 360 * 1073741824), 0), 1073741823)::int as x,
           least(greatest(floor((0.5 - ln(tan(pi() / 4 + radians(greatest(least((ST_YMin(g) + ST_YMax(g)) / 2, 85.0511), -85.0511)) / 2)) / (2 * pi())) * 1073741824), 0), 1073741823)::int as y,
           (case when ST_XMin(g) = ST_XMax(g) and ST_YMin(g) = ST_YMax(g) then 23
                 else least(23, greatest(0, ceil(-ln(greatest(
                   (ST_XMax(g) - ST_XMin(g)) / 360,
                   abs(ln(tan(pi() / 4 + radians(greatest(least(ST_YMax(g), 85.0511), -85.0511)) / 2))
                     - ln(tan(pi() / 4 + radians(greatest(least(ST_YMin(g), 85.0511), -85.0511)) / 2))) / (2 * pi()),
                   1e-12) * 256) / ln(2) - 1e-9))) end)::smallint as zs
  ) s
$$;

-- Bits in v (0..2^30): its bit length.
create or replace function geodataset_px_bits(v int) returns int language sql immutable parallel safe as $$
  select case when v <= 0 then 0 else floor(ln(v) / ln(2) + 1e-10)::int + 1 end
$$;

-- The zoom from which a feature at pixel (x, y) of zoom 22 is first of its pixel, after one at (px, py).
create or replace function geodataset_px_cell_zoom(x int, y int, px int, py int) returns smallint language sql immutable parallel safe as $$
  select (case when px is null then 0
               else greatest(0, 23 - greatest(geodataset_px_bits(x # px), geodataset_px_bits(y # py))) end)::smallint
$$;

-- Recomputes mz (and k, from the layer `t`'s geometry) of the overview's rows `ids` from the row before each.
create or replace function geodataset_px_recompute(t text, ids bigint[]) returns void language plpgsql as $$
begin
  execute format(
    'update %1$I u set mz = v.mz, k = ST_Translate(ST_Envelope(g.geom), 720 * v.mz, 0)
     from (select r.id, least(r.zs, geodataset_px_cell_zoom(r.x, r.y, p.x, p.y)) as mz
           from %1$I r left join lateral (
             select q.x, q.y from %1$I q where (q.gh, q.id) < (r.gh, r.id) order by q.gh desc, q.id desc limit 1
           ) p on true
           where r.id = any($1)) v, %2$I g
     where u.id = v.id and g.id = v.id and u.mz <> v.mz', t || '_ovr', t) using ids;
end $$;

-- Adds the rows `ids` of the layer `t` to its overview, then recomputes them and the rows right after them.
-- (A trigger's transition tables are visible to its own function only: the triggers pass their ids.)
create or replace function geodataset_px_add(t text, ids bigint[]) returns void language plpgsql as $$
declare
  o text := t || '_ovr';
  touched bigint[];
begin
  execute format(
    'insert into %1$I (id, gh, x, y, zs, mz, k)
     select n.id, k.gh, k.x, k.y, k.zs, 23, ST_Translate(ST_Envelope(n.geom), 720 * 23, 0)
     from %2$I n, lateral geodataset_px_key(n.geom) k
     where n.id = any($1) and n.geom is not null and not ST_IsEmpty(n.geom)', o, t) using ids;
  execute format(
    'select array(select r.id from %1$I r where r.id = any($1) union
                  select s.id from %1$I r cross join lateral (
                    select q.id from %1$I q where (q.gh, q.id) > (r.gh, r.id) order by q.gh, q.id limit 1) s
                  where r.id = any($1))', o) into touched using ids;
  perform geodataset_px_recompute(t, touched);
end $$;

-- Removes the rows `ids` from the overview of the layer `t`, then recomputes the rows that came right after them.
create or replace function geodataset_px_remove(t text, ids bigint[]) returns void language plpgsql as $$
declare
  o text := t || '_ovr';
  ghs text[];
  gone bigint[];
  next bigint[];
begin
  execute format('select array_agg(gh), array_agg(id) from %1$I where id = any($1)', o) into ghs, gone using ids;
  if gone is null then
    return;
  end if;
  execute format('delete from %1$I where id = any($1)', o) using gone;
  execute format(
    'select array(select distinct s.id from unnest($1, $2) d(gh, id) cross join lateral (
       select q.id from %1$I q where (q.gh, q.id) > (d.gh collate "C", d.id) order by q.gh, q.id limit 1) s)', o)
    into next using ghs, gone;
  perform geodataset_px_recompute(t, next);
end $$;

create or replace function geodataset_px_insert() returns trigger language plpgsql as $$
begin
  perform geodataset_px_add(tg_table_name, array(select id from new_rows));
  return null;
end $$;

create or replace function geodataset_px_delete() returns trigger language plpgsql as $$
begin
  perform geodataset_px_remove(tg_table_name, array(select id from old_rows));
  return null;
end $$;

create or replace function geodataset_px_update() returns trigger language plpgsql as $$
begin
  perform geodataset_px_remove(tg_table_name, array(select id from old_rows));
  perform geodataset_px_add(tg_table_name, array(select id from new_rows));
  return null;
end $$;

create or replace function geodataset_px_truncate() returns trigger language plpgsql as $$
begin
  execute format('truncate %I', tg_table_name || '_ovr');
  return null;
end $$;

-- Makes the pixel levels of `t` when it has none: the overview `<t>_ovr` in (mz, gh) order (a tile's rows
-- of one level lie on a few pages), its indexes, the triggers. lib/geodatasets/rank.ts calls it after a
-- load, an append, a stats recompute, and when a tile finds no overview.
create or replace function geodataset_pixel_levels(t text) returns void language plpgsql as $$
declare
  o text := t || '_ovr';
begin
  if to_regclass(o) is not null then
    return;
  end if;
  execute format(
    'create table %1$I as
     select id, gh, x, y, zs, mz, ST_Translate(env, 720 * mz, 0) as k
     from (select id, gh, x, y, zs, env,
                  least(zs, geodataset_px_cell_zoom(x, y, px, py)) as mz
           from (select d.id, k.gh collate "C" as gh, k.x, k.y, k.zs, ST_Envelope(d.geom) as env,
                        lag(k.x) over w as px, lag(k.y) over w as py
                 from %2$I d, lateral geodataset_px_key(d.geom) k
                 where d.geom is not null and not ST_IsEmpty(d.geom)
                 window w as (order by k.gh collate "C", d.id)) s) s2
     order by mz, gh', o, t);
  execute format('alter table %I alter column gh set not null, alter column mz set not null', o);
  execute format('alter table %I add primary key (id)', o);
  execute format('create index %I on %I (gh, id)', o || '_gh_idx', o);
  execute format('create index %I on %I using gist (k)', o || '_k_idx', o);
  execute format('drop trigger if exists pixel_levels_insert on %1$I; drop trigger if exists pixel_levels_update on %1$I;
    drop trigger if exists pixel_levels_delete on %1$I; drop trigger if exists pixel_levels_truncate on %1$I', t);
  execute format('create trigger pixel_levels_insert after insert on %I referencing new table as new_rows
    for each statement execute function geodataset_px_insert()', t);
  execute format('create trigger pixel_levels_update after update on %I referencing old table as old_rows
    new table as new_rows for each statement execute function geodataset_px_update()', t);
  execute format('create trigger pixel_levels_delete after delete on %I referencing old table as old_rows
    for each statement execute function geodataset_px_delete()', t);
  execute format('create trigger pixel_levels_truncate after truncate on %I
    for each statement execute function geodataset_px_truncate()', t);
  execute format('analyze %I', o);
end $$;

-- The rank overviews of 0018 go (their triggers, tables and functions); every layer gets its pixel levels.
do $$
declare
  r record;
  d record;
begin
  for r in select c.relname as tbl, g.tgname from pg_trigger g join pg_class c on c.oid = g.tgrelid
           where g.tgname like 'rank\_overview\_%' loop
    execute format('drop trigger if exists %I on %I', r.tgname, r.tbl);
  end loop;
  for d in select table_name from geodatasets loop
    execute format('drop table if exists %I', d.table_name || '_ovr');
    if to_regclass(d.table_name) is not null then
      perform geodataset_pixel_levels(d.table_name);
    end if;
  end loop;
end $$;

drop function if exists geodataset_rank_overview(text, int);
drop function if exists geodataset_rank_overview_insert();
drop function if exists geodataset_rank_overview_update();
drop function if exists geodataset_rank_overview_delete();
drop function if exists geodataset_rank_overview_truncate();
