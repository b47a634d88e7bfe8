-- Failed logins per (username, source address), for login throttling (docs/auth.md). Rows older than the
-- window are useless and deleted in passing.
create table if not exists login_failures (
  username text not null,
  source text not null,
  at timestamptz not null default now()
);
create index if not exists login_failures_pair_idx on login_failures (username, source, at);
