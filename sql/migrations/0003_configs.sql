-- One row per (mission, version); the highest version is the current configuration.
create table configs (
  mission text not null,
  version integer not null check (version >= 1),
  config jsonb not null,
  created_at timestamptz not null default now(),
  primary key (mission, version)
);
