-- Counts of the group lists (X-Total), kept per list (caller and filters) so that a full page does
-- not recount up to 10,001 rows on every request. Shared by every replica (PostgreSQL, not process
-- memory) and always exact: an entry is valid only while the generations it was counted under are
-- still current, and the triggers below bump them in the same transaction as every change that can
-- move a count. Entries are also valid only on the UTC day they were counted (memberships and shares
-- expire at the start of a day without any write).
--
-- Generations: scope 0 is "the groups" (which exist, where, how visible, their names and custom
-- attributes, and the shares between them); scope u > 0 is user u's own memberships and state.
-- Rows are never deleted: a generation going back to a value an old entry holds would revive it.
CREATE TABLE list_count_generations (
  scope bigint PRIMARY KEY,
  generation bigint NOT NULL
);
INSERT INTO list_count_generations (scope, generation) VALUES (0, 1);

-- A cache: UNLOGGED (emptied after a crash, which only costs recounts).
CREATE UNLOGGED TABLE list_counts (
  -- A digest of the list's base set, scope and filters (store/list-counts.ts).
  key text PRIMARY KEY,
  -- The caller the list depends on, 0 for lists that depend on no caller's memberships.
  user_id bigint NOT NULL,
  groups_generation bigint NOT NULL,
  user_generation bigint NOT NULL,
  counted_on date NOT NULL,
  -- Capped: COUNT_CAP + 1 means "more than the cap".
  count int NOT NULL
);

CREATE FUNCTION bump_list_count_generations(scopes bigint[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO list_count_generations AS g (scope, generation)
  SELECT DISTINCT s, 1 FROM unnest(scopes) s ORDER BY s
  ON CONFLICT (scope) DO UPDATE SET generation = g.generation + 1;
$$;

-- Groups created or removed (personal namespaces are in no group list).
CREATE FUNCTION list_counts_namespaces_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM 1 FROM new_rows WHERE kind = 'group' LIMIT 1;
  ELSE
    -- What a list filters, orders or counts on; an update of anything else moves no count.
    PERFORM 1 FROM old_rows o JOIN new_rows n ON n.id = o.id
     WHERE (o.kind = 'group' OR n.kind = 'group')
       AND (o.kind, o.parent_id, o.traversal_ids, o.visibility_level, o.pending_removal, o.path, o.name,
            o.full_path, o.full_name)
           IS DISTINCT FROM
           (n.kind, n.parent_id, n.traversal_ids, n.visibility_level, n.pending_removal, n.path, n.name,
            n.full_path, n.full_name)
     LIMIT 1;
  END IF;
  IF FOUND THEN
    PERFORM bump_list_count_generations(ARRAY[0::bigint]);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER list_counts_namespaces_inserted AFTER INSERT ON namespaces
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_namespaces_changed();
CREATE TRIGGER list_counts_namespaces_updated AFTER UPDATE ON namespaces
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_namespaces_changed();
-- Before, not after: a removal's cascade bumps the generations of the removed members' users, and
-- every transaction must take scope 0 before any user's (creating a group does: the group, then its
-- owner's membership), or two of them could deadlock. A removal of a personal namespace bumps too.
CREATE FUNCTION list_counts_namespaces_deleting() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM bump_list_count_generations(ARRAY[0::bigint]);
  RETURN NULL;
END $$;

CREATE TRIGGER list_counts_namespaces_deleted BEFORE DELETE ON namespaces
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_namespaces_deleting();

-- A membership added, changed or removed moves only its user's lists (who reaches what through a
-- share is also decided by the user's own memberships: authorizedNamespacesSql).
CREATE FUNCTION list_counts_members_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM bump_list_count_generations(ARRAY(SELECT user_id FROM new_rows));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM bump_list_count_generations(ARRAY(SELECT user_id FROM old_rows));
  ELSE
    PERFORM bump_list_count_generations(ARRAY(
      SELECT o.user_id FROM old_rows o JOIN new_rows n ON n.namespace_id = o.namespace_id AND n.user_id = o.user_id
       WHERE (o.access_level, o.expires_at) IS DISTINCT FROM (n.access_level, n.expires_at)
      UNION SELECT o.user_id FROM old_rows o
       WHERE NOT EXISTS (SELECT 1 FROM new_rows n WHERE n.namespace_id = o.namespace_id AND n.user_id = o.user_id)
      UNION SELECT n.user_id FROM new_rows n
       WHERE NOT EXISTS (SELECT 1 FROM old_rows o WHERE n.namespace_id = o.namespace_id AND n.user_id = o.user_id)));
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER list_counts_members_inserted AFTER INSERT ON members
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_members_changed();
CREATE TRIGGER list_counts_members_updated AFTER UPDATE ON members
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_members_changed();
CREATE TRIGGER list_counts_members_deleted AFTER DELETE ON members
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION list_counts_members_changed();

-- A blocked (or unblocked) user's memberships stop (or start) counting.
CREATE FUNCTION list_counts_users_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM bump_list_count_generations(ARRAY(
    SELECT n.id FROM old_rows o JOIN new_rows n ON n.id = o.id WHERE o.state IS DISTINCT FROM n.state));
  RETURN NULL;
END $$;

CREATE TRIGGER list_counts_users_updated AFTER UPDATE ON users
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_users_changed();

-- Shares (they reach every member of the group shared with) and custom attributes (the
-- administrators' custom_attributes filter) are rare writes: they move every count.
CREATE FUNCTION list_counts_groups_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM bump_list_count_generations(ARRAY[0::bigint]);
  RETURN NULL;
END $$;

CREATE TRIGGER list_counts_group_links_changed AFTER INSERT OR UPDATE OR DELETE ON group_links
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_groups_changed();
CREATE TRIGGER list_counts_custom_attributes_changed AFTER INSERT OR UPDATE OR DELETE ON custom_attributes
  FOR EACH STATEMENT EXECUTE FUNCTION list_counts_groups_changed();
