-- Who can see a project without any access to its group (GitLab's has_projects: a user who can see
-- a project inside a group or its subgroups may read the group, and it is in their GET /groups),
-- as the projects service's events tell it (src/events/project-access.ts): direct project
-- memberships, and shares of projects with groups (whose members, and the members of the group's
-- ancestors, then see the project). Written only by that consumer; store/access.ts reads them.
-- No foreign keys: the consumer may meet a membership before its project, its user or its group
-- (replicas apply events in parallel), and the readers join what exists.
CREATE TABLE project_members (
  project_id   bigint NOT NULL,
  user_id      bigint NOT NULL,
  access_level smallint NOT NULL,
  expires_at   date,
  PRIMARY KEY (project_id, user_id)
);
CREATE INDEX project_members_user ON project_members (user_id);

CREATE TABLE project_shares (
  project_id   bigint NOT NULL,
  group_id     bigint NOT NULL,
  group_access smallint NOT NULL,
  expires_at   date,
  PRIMARY KEY (project_id, group_id)
);
CREATE INDEX project_shares_group ON project_shares (group_id);

-- The kept list counts (0008) stay exact: a project membership moves only its user's lists; a
-- share reaches every member of a group and of its ancestors, and is a rare write: it moves every
-- count (scope 0), as group shares do. Scope 0 before any user's in every transaction (0008).
CREATE FUNCTION list_counts_project_members_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM bump_list_count_generations(ARRAY(SELECT user_id FROM new_rows));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM bump_list_count_generations(ARRAY(SELECT user_id FROM old_rows));
  ELSE
    PERFORM bump_list_count_generations(ARRAY(
      SELECT o.user_id FROM old_rows o JOIN new_rows n ON n.project_id = o.project_id AND n.user_id = o.user_id
       WHERE o.expires_at IS DISTINCT FROM n.expires_at
      UNION SELECT o.user_id FROM old_rows o
       WHERE NOT EXISTS (SELECT 1 FROM new_rows n WHERE n.project_id = o.project_id AND n.user_id = o.user_id)
      UNION SELECT n.user_id FROM new_rows n
       WHERE NOT EXISTS (SELECT 1 FROM old_rows o WHERE n.project_id = o.project_id AND n.user_id = o.user_id)));
  END IF;
  RETURN NULL;
END $$;
ALTER FUNCTION list_counts_project_members_changed() SET search_path FROM CURRENT;

CREATE TRIGGER list_counts_project_members_inserted AFTER INSERT ON project_members
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_project_members_changed();
CREATE TRIGGER list_counts_project_members_updated AFTER UPDATE ON project_members
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_project_members_changed();
CREATE TRIGGER list_counts_project_members_deleted AFTER DELETE ON project_members
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_project_members_changed();

-- list_counts_groups_changed (0008) bumps scope 0.
CREATE TRIGGER list_counts_project_shares_changed AFTER INSERT OR UPDATE OR DELETE ON project_shares
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_groups_changed();

-- A project copy that appears (possibly after its memberships), moves to another namespace or goes
-- changes where its members and the members of the groups it is shared with see it: their lists
-- move (scope 0 when it is shared with any group, then its members' own scopes).
CREATE FUNCTION list_counts_projects_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  moved bigint[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    moved := ARRAY(SELECT id FROM new_rows);
  ELSIF TG_OP = 'DELETE' THEN
    moved := ARRAY(SELECT id FROM old_rows);
  ELSE
    moved := ARRAY(SELECT n.id FROM old_rows o JOIN new_rows n ON n.id = o.id
                    WHERE o.namespace_id IS DISTINCT FROM n.namespace_id);
  END IF;
  IF cardinality(moved) = 0 THEN
    RETURN NULL;
  END IF;
  PERFORM 1 FROM project_shares WHERE project_id = ANY(moved) LIMIT 1;
  IF FOUND THEN
    PERFORM bump_list_count_generations(ARRAY[0::bigint]);
  END IF;
  PERFORM bump_list_count_generations(ARRAY(
    SELECT DISTINCT user_id FROM project_members WHERE project_id = ANY(moved)));
  RETURN NULL;
END $$;
ALTER FUNCTION list_counts_projects_changed() SET search_path FROM CURRENT;

CREATE TRIGGER list_counts_projects_inserted AFTER INSERT ON projects
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_projects_changed();
CREATE TRIGGER list_counts_projects_updated AFTER UPDATE ON projects
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_projects_changed();
CREATE TRIGGER list_counts_projects_deleted AFTER DELETE ON projects
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_projects_changed();
