-- Short links (docs/shortener.md) and tabular CSV datasets (docs/datasets.md).
create table short_urls (
  code text primary key check (code ~ '^[0-9a-z]{6,16}$'),
  url text not null unique,
  creator text,
  created_at timestamptz not null default now()
);

-- One row per tabular dataset; `columns` is the header in file order.
create table datasets (
  id bigserial primary key,
  name text not null unique,
  columns jsonb not null default '[]',
  num_rows integer not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- Every row of every dataset: values as text keyed by column name, `idx` is the row's position (1-based).
create table dataset_rows (
  dataset_id bigint not null references datasets (id) on delete cascade,
  idx integer not null,
  data jsonb not null,
  primary key (dataset_id, idx)
);
-- `get` looks rows up by containment (data @> {"col": "value"}): one GIN index serves every column.
create index dataset_rows_data_idx on dataset_rows using gin (data jsonb_path_ops);
