-- Asynchronous jobs (conversions, stats recompute, large ingests) and their state.
create table jobs (
  id uuid primary key,
  kind text not null,
  name text,
  state text not null default 'queued'
    check (state in ('awaiting_upload', 'queued', 'running', 'succeeded', 'failed')),
  input jsonb not null default '{}',
  result jsonb,
  error text,
  processed bigint,
  total bigint,
  created_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz
);
create index jobs_state_idx on jobs (state);
