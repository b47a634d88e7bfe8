-- WebSocket connections per address (docs/live-updates.md, "Limits"): each connection records the address
-- that opened it ($connect's requestContext.identity.sourceIp), so $connect counts that address's open
-- connections across every function instance. Rows from before have no address and count for none.
alter table ws_connections add column if not exists source_ip text;
create index if not exists ws_connections_source_ip on ws_connections (source_ip, connected_at);
