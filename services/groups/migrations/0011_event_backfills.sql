-- One-time publications of events that consumers of existing data are owed (as auth's 0006): a
-- snapshot of every namespace, group membership and group share, for consumers that joined after
-- the event stream (7 days) dropped the events that made them (the projects service added to an
-- existing deployment). Each backfill is one row: replicas take it FOR UPDATE one batch at a time,
-- so no batch is published twice, and `last_id` (committed with each batch's events) lets a
-- restarted replica resume where a stopped one left off. On a fresh database the first pass finds
-- nothing and marks each done.
CREATE TABLE event_backfills (
  name       text PRIMARY KEY,
  last_id    bigint NOT NULL DEFAULT 0,
  started_at timestamptz,
  done_at    timestamptz
);

INSERT INTO event_backfills (name) VALUES ('namespace-snapshots'), ('membership-snapshots'), ('group-share-snapshots');
