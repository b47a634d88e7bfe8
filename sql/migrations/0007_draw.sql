-- Draw and files (docs/draw.md): users' files of drawn features, append-only feature rows, and one history
-- snapshot per change. A file's content at time T is its latest snapshot at or before T.
create table draw_files (
  id bigserial primary key,
  -- NULL for the six master files (owned by no user).
  file_owner text,
  file_name text not null,
  file_description text not null default '',
  intent text check (intent in ('roi', 'campaign', 'campsite', 'trail', 'signpost', 'all')),
  public text not null default '1' check (public in ('0', '1')),
  hidden text not null default '0' check (hidden in ('0', '1')),
  template jsonb,
  publicity_type text check (publicity_type in ('read_only', 'list_edit', 'all_edit')),
  public_editors text[] not null default '{}',
  is_master boolean not null default false,
  created_on timestamptz not null default now(),
  updated_on timestamptz not null default now()
);
create index draw_files_owner on draw_files (file_owner);

-- Append-only: an edit writes a new row; rows are never updated or deleted.
create table draw_features (
  id bigserial primary key,
  file_id bigint not null references draw_files (id) on delete cascade,
  level integer not null default 0,
  intent text,
  properties jsonb not null default '{}'::jsonb,
  geom geometry(Geometry, 4326) not null,
  -- The row this one supersedes (edit, clip, merge, split): provenance, never read for content.
  replaces bigint,
  created_at timestamptz not null default now()
);
create index draw_features_file on draw_features (file_id);
create index draw_features_geom on draw_features using gist (geom);

-- One row per change of a file: the ids of the features the file holds after it.
create table draw_history (
  id bigserial primary key,
  file_id bigint not null references draw_files (id) on delete cascade,
  history_id integer not null,
  -- epoch milliseconds, strictly increasing per file
  time bigint not null,
  action_index smallint not null check (action_index between 0 and 8),
  history bigint[] not null default '{}',
  author text,
  unique (file_id, history_id)
);
-- "the latest snapshot of file F at or before T" is one descending index probe.
create index draw_history_file_time on draw_history (file_id, time desc, history_id desc);
-- "the latest publish snapshot of file F at or before T".
create index draw_history_file_publish on draw_history (file_id, time desc) where action_index = 4;

-- Each publish: the compiled hierarchy and a copy of the master files' features as they were.
create table draw_publishes (
  id bigserial primary key,
  time bigint not null,
  author text,
  hierarchy jsonb not null
);
create table draw_published_features (
  publish_id bigint not null references draw_publishes (id) on delete cascade,
  feature_id bigint not null,
  file_id bigint not null,
  level integer not null,
  intent text,
  properties jsonb not null,
  geom geometry(Geometry, 4326) not null,
  primary key (publish_id, feature_id)
);
create index draw_published_features_geom on draw_published_features using gist (geom);

-- The six master files, each with its empty first snapshot.
insert into draw_files (file_owner, file_name, file_description, intent, public, publicity_type, is_master)
select null, m.name, '', lower(m.name), '1', 'read_only', true
from (values (1, 'ROI'), (2, 'CAMPAIGN'), (3, 'CAMPSITE'), (4, 'TRAIL'), (5, 'SIGNPOST'), (6, 'ALL')) as m (n, name)
order by m.n;
insert into draw_history (file_id, history_id, time, action_index, history, author)
select id, 0, (extract(epoch from now()) * 1000)::bigint, 0, '{}', null from draw_files where is_master;
