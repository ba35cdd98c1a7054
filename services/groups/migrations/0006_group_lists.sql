-- Group lists: the indexes their orders and scopes need beyond 0001, and pg_trgm for the
-- similarity order and substring search when the migrating role may create it.

-- The descendants of a root in name order: `traversal_ids[1] = root` ordered by (name, id) is one
-- index range, so a page of a 10k-group subtree needs no sort of the subtree.
CREATE INDEX namespaces_groups_root_by_name ON namespaces ((traversal_ids[1]), name, id) WHERE kind = 'group';
-- Anonymous GET /groups (public groups in name order) and its capped count, without reading the
-- private and internal rows in between.
CREATE INDEX namespaces_public_groups_by_name ON namespaces (name, id)
  WHERE kind = 'group' AND visibility_level >= 20;
-- The same for signed-in callers with all_available (internal and public groups).
CREATE INDEX namespaces_internal_groups_by_name ON namespaces (name, id)
  WHERE kind = 'group' AND visibility_level >= 10;
-- Children in name order (GET /groups/:id/subgroups).
CREATE INDEX namespaces_children_by_name ON namespaces (parent_id, name, id) WHERE kind = 'group';

-- pg_trgm: similarity() for order_by=similarity and trigram indexes for ILIKE '%word%'. A role
-- that may not create extensions leaves it out; the lists then use their documented approximation
-- (store/group-lists.ts) and sequential matching.
DO $$
BEGIN
  CREATE EXTENSION IF NOT EXISTS pg_trgm;
EXCEPTION WHEN insufficient_privilege OR undefined_file OR feature_not_supported THEN
  RAISE NOTICE 'pg_trgm not available: group search uses plain ILIKE';
END $$;

DO $$
DECLARE ops text;
BEGIN
  SELECT quote_ident(n.nspname) || '.gin_trgm_ops' INTO ops
    FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm';
  IF ops IS NOT NULL THEN
    EXECUTE format('CREATE INDEX namespaces_full_path_trgm ON namespaces USING gin (full_path %s) WHERE kind = ''group''', ops);
    EXECUTE format('CREATE INDEX namespaces_full_name_trgm ON namespaces USING gin (full_name %s) WHERE kind = ''group''', ops);
  END IF;
END $$;
