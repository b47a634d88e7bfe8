-- Webhooks (docs/webhooks.md). Each save of the configure app's Webhooks page is a new row, as the
-- established server keeps them; the newest row is the configuration in force. `config` is what the page
-- sent: {webhooks: [{action, type, url, header, body}]} (header and body as the JSON text typed there).
create table webhook_configs (
  id bigserial primary key,
  config jsonb not null,
  saved_by text,
  created_at timestamptz not null default now()
);

-- One row per attempted call (sent, failed, refused), kept 30 days: what an administrator reads when a
-- receiver says nothing arrived. `target` is the URL without its query (it may carry secrets).
create table webhook_deliveries (
  id bigserial primary key,
  action text not null,
  file_id bigint,
  method text not null,
  target text not null,
  outcome text not null check (outcome in ('sent', 'failed', 'refused')),
  status integer,
  error text,
  ms integer,
  created_at timestamptz not null default now()
);

create index webhook_deliveries_created_at on webhook_deliveries (created_at);
