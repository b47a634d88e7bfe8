-- The geodataset catalog. Each dataset's rows live in their own table, whose name the service derives
-- from the catalog id (never from the dataset name): see lib/geodatasets/catalog.ts.
create table geodatasets (
  id bigserial primary key,
  name text not null unique,
  table_name text not null unique,
  properties_type text not null default 'jsonb' check (properties_type in ('json', 'jsonb')),
  filename text,
  num_features bigint not null default 0,
  start_prop text,
  end_prop text,
  group_id_prop text,
  feature_id_prop text,
  field_stats jsonb,
  -- Bumped by every write; part of tile ETags and TileJSON URLs.
  version bigint not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
