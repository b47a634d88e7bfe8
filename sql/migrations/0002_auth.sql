-- Users, browser sessions and long-term API tokens. Secrets are stored only as hashes.
create table users (
  id bigserial primary key,
  username text not null unique,
  email text,
  password_hash text not null,
  role text not null default 'user' check (role in ('admin', 'user')),
  missions text[] not null default '{}',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table sessions (
  -- sha256 of the cookie value: a leaked table does not yield usable cookies.
  id_hash text primary key,
  user_id bigint not null references users (id) on delete cascade,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index sessions_user_idx on sessions (user_id);
create index sessions_expires_idx on sessions (expires_at);

create table api_tokens (
  id uuid primary key,
  name text,
  prefix text not null,
  token_hash text not null unique,
  user_id bigint not null references users (id) on delete cascade,
  created_at timestamptz not null default now(),
  expires_at timestamptz,
  last_used_at timestamptz
);
