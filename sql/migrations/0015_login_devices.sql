-- Trusted login devices and known addresses (docs/auth.md, "Login throttling"): a device cookie, issued on
-- a successful login, is stored only as its SHA-256 with the username it was issued to; an address that
-- logged a user in is remembered with the time of its last success.
create table if not exists login_devices (
  id_hash text primary key,
  username text not null,
  created_at timestamptz not null default now(),
  last_used_at timestamptz not null default now()
);
create index if not exists login_devices_username_idx on login_devices (username);

create table if not exists login_known_sources (
  username text not null,
  source text not null,
  last_success_at timestamptz not null default now(),
  primary key (username, source)
);
