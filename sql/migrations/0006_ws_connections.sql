-- WebSocket clients for live configuration updates (docs/configure.md, "Events"). Any Lambda instance
-- pushes to a mission's subscribers by reading these rows; gone connections are deleted on 410.
create table ws_connections (
  connection_id text primary key,
  -- Who connected (session cookie or Bearer token on $connect); null = anonymous. Role and missions
  -- are read from users at subscribe time, so changes apply on the next subscribe.
  user_id bigint references users(id) on delete set null,
  -- The management endpoint of the connection's WebSocket API (WEBSOCKET_ENDPOINT locally, else
  -- https://<domain>/<stage> of the connect event): pushes from any instance go there.
  endpoint text,
  connected_at timestamptz not null default now()
);

create table ws_subscriptions (
  connection_id text not null references ws_connections(connection_id) on delete cascade,
  mission text not null,
  created_at timestamptz not null default now(),
  primary key (connection_id, mission)
);

create index ws_subscriptions_mission on ws_subscriptions (mission);
create index ws_connections_connected_at on ws_connections (connected_at);
