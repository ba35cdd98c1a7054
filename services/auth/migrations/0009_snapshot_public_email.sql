-- Publish every user's snapshot once more (the backfill of 0006, run again): UserSnapshot now
-- carries the public e-mail (the hooks service names a project's owners by it in its payloads).
UPDATE event_backfills SET last_id = 0, started_at = NULL, done_at = NULL WHERE name = 'user-snapshots';
