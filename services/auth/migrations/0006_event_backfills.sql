-- One-time publications of events that a new version owes to consumers of existing data (e.g. a
-- UserUpdated snapshot of every user that existed before auth published snapshots). Each backfill
-- is one row: replicas take it FOR UPDATE one batch at a time, so batches are never published twice,
-- and `last_id` (committed with each batch's events) lets a restarted replica resume where the
-- crashed one stopped.
CREATE TABLE event_backfills (
  name       text PRIMARY KEY,
  last_id    bigint NOT NULL DEFAULT 0,
  started_at timestamptz,
  done_at    timestamptz
);

INSERT INTO event_backfills (name) VALUES ('user-snapshots');
