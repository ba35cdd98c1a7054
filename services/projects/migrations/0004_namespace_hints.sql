-- A group's project_creation_level (who may create projects in it), carried by the groups
-- service's namespace snapshots: 0 noone, 1 maintainer, 2 developer (GitLab's default, also for
-- copies made from events older than the field).
ALTER TABLE namespaces ADD COLUMN project_creation_level smallint NOT NULL DEFAULT 2;

-- Namespaces the groups service removed: a late hint (POST /projects passes the namespace as the
-- groups service answered it a moment before) must not bring one back (ids are never reused).
CREATE TABLE removed_namespaces (
  id bigint PRIMARY KEY
);
