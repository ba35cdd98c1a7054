-- UserSnapshot now carries the e-mail (the groups service shows it to administrators in member
-- lists): publish every user's snapshot once more, so copies made from older snapshots catch up.
UPDATE event_backfills SET last_id = 0, started_at = NULL, done_at = NULL WHERE name = 'user-snapshots';
