-- Group removal runs in the background (GitLab's GroupDestroyWorker): DELETE on the free plan (or
-- with no adjourned period), `permanently_remove`, and the scheduler for marks older than the
-- adjourned period each leave a job here; a worker on any replica takes one with FOR UPDATE SKIP
-- LOCKED and removes the group's subtree. A removed group takes its job (and its descendants') along.
CREATE TABLE group_removals (
  namespace_id    bigint PRIMARY KEY REFERENCES namespaces (id) ON DELETE CASCADE,
  -- 'delete' (DELETE without marking), 'permanent' (permanently_remove), 'adjourned' (the scheduler).
  reason          text NOT NULL CHECK (reason IN ('delete', 'permanent', 'adjourned')),
  requested_by_id bigint,
  requested_at    timestamptz NOT NULL DEFAULT now(),
  -- Put off while the tree's root is locked by other work, so one busy tree does not stall the rest.
  not_before      timestamptz NOT NULL DEFAULT now(),
  attempts        integer NOT NULL DEFAULT 0
);
CREATE INDEX group_removals_due ON group_removals (not_before, requested_at);

-- A group whose removal was requested is hidden at once (404), with its whole subtree, until the
-- worker has removed it: GitLab's "deletion in progress".
ALTER TABLE namespaces ADD COLUMN pending_removal boolean NOT NULL DEFAULT false;
