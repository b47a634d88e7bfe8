-- WebSocket limits (docs/live-updates.md, "Limits"): each connection counts its messages in a fixed
-- window; past the limit the connection is closed.
alter table ws_connections
  add column msg_window_start timestamptz not null default now(),
  add column msg_count integer not null default 0;
