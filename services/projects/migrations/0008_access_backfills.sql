-- Two more one-time publications (as 0006): a snapshot of every direct project membership and of
-- every share of a project with a group, for the groups service's copy of who sees a project through
-- the project itself (its migration 0013: GitLab's has_projects lets them read the project's group
-- and its ancestors) in a deployment whose memberships are older than the event stream (7 days).
-- On a fresh database the first pass finds nothing and marks each done.
INSERT INTO event_backfills (name) VALUES ('project-membership-snapshots'), ('project-share-snapshots');
