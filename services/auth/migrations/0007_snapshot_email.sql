-- Publish every user's snapshot once more (the backfill of 0006, run again):
-- - UserSnapshot now carries the e-mail (the groups service shows it to administrators in member
--   lists), so copies made from older snapshots catch up;
-- - the projects service keeps its own copy of users from the stream, which keeps 7 days of events,
--   so a deployment older than that gives the new consumer every user, not only those changed since.
UPDATE event_backfills SET last_id = 0, started_at = NULL, done_at = NULL WHERE name = 'user-snapshots';
