-- A root group's subtree in the list's order (store/group-scope.ts): GET /groups/:id/projects with
-- include_subgroups walks only that root's projects, newest first (the default order) or by id (the
-- order clients page by keyset with), and stops at its page whatever the table holds.
CREATE INDEX projects_root_created_at ON projects ((traversal_ids[1]), created_at, id);
CREATE INDEX projects_root_id ON projects ((traversal_ids[1]), id);
-- A group's own projects (without include_subgroups, and the group detail's) the same way.
CREATE INDEX projects_namespace_created_at ON projects (namespace_id, created_at, id);
CREATE INDEX projects_namespace_id ON projects (namespace_id, id);
