-- Stuck jobs (docs/uploads.md#stuck-jobs): a running job's function refreshes heartbeat_at; the
-- scheduled reaper fails (or, for upload ingests, re-runs once) jobs whose heartbeat went stale.
alter table jobs add column heartbeat_at timestamptz;
alter table jobs add column attempts integer not null default 0;
create index jobs_active_idx on jobs (state, heartbeat_at) where state in ('queued', 'running');
