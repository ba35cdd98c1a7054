-- A removed group stays in the copies as a tombstone for a while: with several replicas an event of
-- the group (a member added just before the removal) can be applied after the removal, and it must
-- still find the group's ancestors rather than wait for a group that will never come back. The
-- pruning timer deletes tombstones after the log retention.
ALTER TABLE namespaces ADD COLUMN removed_at timestamptz;
CREATE INDEX namespaces_removed_at ON namespaces (removed_at) WHERE removed_at IS NOT NULL;
