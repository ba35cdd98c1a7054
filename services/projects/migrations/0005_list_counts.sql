-- Counts of the project lists (X-Total of GET /projects and GET /users/:id/projects), kept per list
-- (caller and filters) so that a full page does not recount up to 10,001 rows on every request: the
-- groups service's list_counts (its migration 0008), applied to projects. Shared by every replica
-- and always exact: an entry is valid only while the generations it was counted under are current,
-- and the triggers below bump them in the same transaction as every change that can move a count.
-- Entries are also valid only on the UTC day they were counted (memberships and shares expire at
-- the start of a day without any write).
--
-- Generations: scope 0 is "the projects and their places" (which projects exist, where, how
-- visible, archived, named; the namespaces' copies; shares of groups and of projects; custom
-- attributes); scope u > 0 is user u's own memberships (group and project), stars and state.
-- Rows are never deleted: a generation going back to a value an old entry holds would revive it.
--
-- The functions keep the schema they were made in (SET search_path FROM CURRENT): a write made
-- under another search_path (an administrator's session, another service's pool) still finds them.
--
-- Lock order: every transaction takes scope 0 before any user's scope (bump_list_count_generations
-- sorts the scopes of one call; the scope-0 triggers on inserts and deletes fire BEFORE the
-- statement, so that a deletion's cascades onto members and stars, which bump users, come after).
CREATE TABLE list_count_generations (
  scope bigint PRIMARY KEY,
  generation bigint NOT NULL
);
INSERT INTO list_count_generations (scope, generation) VALUES (0, 1);

-- A cache: UNLOGGED (emptied after a crash, which only costs recounts).
CREATE UNLOGGED TABLE list_counts (
  -- A digest of the list's filters (store/list-counts.ts).
  key text PRIMARY KEY,
  -- The caller the list depends on, 0 for anonymous callers.
  user_id bigint NOT NULL,
  projects_generation bigint NOT NULL,
  user_generation bigint NOT NULL,
  counted_on date NOT NULL,
  -- Capped: COUNT_CAP + 1 means "more than the cap".
  count int NOT NULL
);

CREATE FUNCTION bump_list_count_generations(scopes bigint[]) RETURNS void LANGUAGE sql SET search_path FROM CURRENT AS $$
  INSERT INTO list_count_generations AS g (scope, generation)
  SELECT DISTINCT s, 1 FROM unnest(scopes) s ORDER BY s
  ON CONFLICT (scope) DO UPDATE SET generation = g.generation + 1;
$$;

CREATE FUNCTION list_counts_bump_projects() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  PERFORM bump_list_count_generations(ARRAY[0::bigint]);
  RETURN NULL;
END $$;

-- Projects created or removed; namespaces' copies made or removed; shares and custom attributes
-- (rare writes that reach many callers) changed.
CREATE TRIGGER list_counts_projects_written BEFORE INSERT OR DELETE OR TRUNCATE ON projects
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_bump_projects();
CREATE TRIGGER list_counts_namespaces_written BEFORE INSERT OR DELETE OR TRUNCATE ON namespaces
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_bump_projects();
CREATE TRIGGER list_counts_group_links_written BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON group_group_links
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_bump_projects();
CREATE TRIGGER list_counts_project_links_written BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON project_group_links
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_bump_projects();
CREATE TRIGGER list_counts_custom_attributes_written BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE
  ON project_custom_attributes FOR EACH STATEMENT EXECUTE FUNCTION list_counts_bump_projects();

-- A project changed in what a list filters on (star_count, updated_at, last_activity_at and the
-- settings move no count; its order is not part of a count).
CREATE FUNCTION list_counts_projects_updated() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  PERFORM 1 FROM old_rows o JOIN new_rows n ON n.id = o.id
   WHERE (o.namespace_id, o.traversal_ids, o.visibility_level, o.archived, o.name, o.path, o.description,
          o.topics, o.access_levels, o.marked_for_deletion_on)
         IS DISTINCT FROM
         (n.namespace_id, n.traversal_ids, n.visibility_level, n.archived, n.name, n.path, n.description,
          n.topics, n.access_levels, n.marked_for_deletion_on)
   LIMIT 1;
  IF FOUND THEN
    PERFORM bump_list_count_generations(ARRAY[0::bigint]);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER list_counts_projects_updated AFTER UPDATE ON projects
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_projects_updated();

-- A namespace copy changed in what access or a list reads: its place (who owns it, its ancestors),
-- its mark for deletion (hides its projects), its visibility.
CREATE FUNCTION list_counts_namespaces_updated() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  PERFORM 1 FROM old_rows o JOIN new_rows n ON n.id = o.id
   WHERE (o.kind, o.owner_id, o.parent_id, o.traversal_ids, o.visibility_level, o.marked_for_deletion_on)
         IS DISTINCT FROM
         (n.kind, n.owner_id, n.parent_id, n.traversal_ids, n.visibility_level, n.marked_for_deletion_on)
   LIMIT 1;
  IF FOUND THEN
    PERFORM bump_list_count_generations(ARRAY[0::bigint]);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER list_counts_namespaces_updated AFTER UPDATE ON namespaces
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_namespaces_updated();

-- A membership (of a group or of a project) or a star added, changed or removed moves only its
-- user's lists (who reaches what through a share is decided by the user's own memberships too).
CREATE FUNCTION list_counts_user_rows_inserted() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  PERFORM bump_list_count_generations(ARRAY(SELECT user_id FROM new_rows));
  RETURN NULL;
END $$;
CREATE FUNCTION list_counts_user_rows_deleted() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  PERFORM bump_list_count_generations(ARRAY(SELECT user_id FROM old_rows));
  RETURN NULL;
END $$;
-- Memberships: a change of level or expiry (who added it and when move nothing). The rows that
-- differ in what counts, on either side, name the users whose lists moved.
CREATE FUNCTION list_counts_group_members_updated() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  PERFORM bump_list_count_generations(ARRAY(
    SELECT user_id FROM (
      (SELECT user_id, namespace_id, access_level, expires_at FROM old_rows
       EXCEPT SELECT user_id, namespace_id, access_level, expires_at FROM new_rows)
      UNION
      (SELECT user_id, namespace_id, access_level, expires_at FROM new_rows
       EXCEPT SELECT user_id, namespace_id, access_level, expires_at FROM old_rows)) changed));
  RETURN NULL;
END $$;
CREATE FUNCTION list_counts_project_members_updated() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  PERFORM bump_list_count_generations(ARRAY(
    SELECT user_id FROM (
      (SELECT user_id, project_id, access_level, expires_at FROM old_rows
       EXCEPT SELECT user_id, project_id, access_level, expires_at FROM new_rows)
      UNION
      (SELECT user_id, project_id, access_level, expires_at FROM new_rows
       EXCEPT SELECT user_id, project_id, access_level, expires_at FROM old_rows)) changed));
  RETURN NULL;
END $$;

CREATE TRIGGER list_counts_group_members_inserted AFTER INSERT ON group_members
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_user_rows_inserted();
CREATE TRIGGER list_counts_group_members_updated AFTER UPDATE ON group_members
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_group_members_updated();
CREATE TRIGGER list_counts_group_members_deleted AFTER DELETE ON group_members
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_user_rows_deleted();

CREATE TRIGGER list_counts_project_members_inserted AFTER INSERT ON project_members
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_user_rows_inserted();
CREATE TRIGGER list_counts_project_members_updated AFTER UPDATE ON project_members
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_project_members_updated();
CREATE TRIGGER list_counts_project_members_deleted AFTER DELETE ON project_members
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_user_rows_deleted();

-- Stars: the `starred` filter.
CREATE TRIGGER list_counts_stars_inserted AFTER INSERT ON stars
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_user_rows_inserted();
CREATE TRIGGER list_counts_stars_deleted AFTER DELETE ON stars
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_user_rows_deleted();

-- A blocked (or unblocked) user's memberships stop (or start) counting.
CREATE FUNCTION list_counts_users_updated() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  PERFORM bump_list_count_generations(ARRAY(
    SELECT n.id FROM old_rows o JOIN new_rows n ON n.id = o.id WHERE o.state IS DISTINCT FROM n.state));
  RETURN NULL;
END $$;

CREATE TRIGGER list_counts_users_updated AFTER UPDATE ON users
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_users_updated();
CREATE FUNCTION list_counts_users_inserted_rows() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  PERFORM bump_list_count_generations(ARRAY(SELECT id FROM new_rows WHERE state <> 'active'));
  RETURN NULL;
END $$;

-- A copy made of a user already blocked (a missing copy counts as active).
CREATE TRIGGER list_counts_users_inserted AFTER INSERT ON users
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_users_inserted_rows();
