-- One-time publications of events that consumers of existing data are owed (as auth's 0006 and the
-- groups service's 0011): a snapshot of every project, for the groups service's copy of projects
-- (its migration 0012) in a deployment whose projects are older than the event stream (7 days).
-- Replicas take the row FOR UPDATE one batch at a time, so no batch is published twice, and
-- `last_id` (committed with each batch's events) lets a restarted replica resume where a stopped one
-- left off. On a fresh database the first pass finds nothing and marks it done.
CREATE TABLE event_backfills (
  name       text PRIMARY KEY,
  last_id    bigint NOT NULL DEFAULT 0,
  started_at timestamptz,
  done_at    timestamptz
);

INSERT INTO event_backfills (name) VALUES ('project-snapshots');
