-- The kept list counts' generations (0005) are bumped at commit, not in the writing statement, as
-- the groups service's migration 0015 explains: a bumped row stayed locked for the rest of the
-- writing transaction, and scope 0 (every write of projects and the namespaces' copies) and a busy
-- user's scope made such writes queue behind each other. Statements ask for their bumps; a deferred
-- trigger makes them at commit, in scope order (one lock order: no deadlock on them). A write that
-- reads a kept count before its own commit may see the old one (none does).
CREATE TABLE list_count_bump_requests (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY);

CREATE FUNCTION list_counts_bump_at_commit() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO list_count_generations AS g (scope, generation)
  SELECT DISTINCT s, 1
    FROM unnest(NULLIF(current_setting('canopy.list_count_scopes', true), '')::bigint[]) s ORDER BY s
  ON CONFLICT (scope) DO UPDATE SET generation = g.generation + 1;
  PERFORM set_config('canopy.list_count_scopes', '', true);
  DELETE FROM list_count_bump_requests WHERE id = NEW.id;
  RETURN NULL;
END $$;

CREATE CONSTRAINT TRIGGER list_counts_bump_requested AFTER INSERT ON list_count_bump_requests
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION list_counts_bump_at_commit();

CREATE OR REPLACE FUNCTION bump_list_count_generations(scopes bigint[]) RETURNS void LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
DECLARE
  pending bigint[] := NULLIF(current_setting('canopy.list_count_scopes', true), '')::bigint[];
BEGIN
  IF coalesce(cardinality(scopes), 0) = 0 THEN
    RETURN;
  END IF;
  IF pending IS NULL THEN
    INSERT INTO list_count_bump_requests DEFAULT VALUES;
  END IF;
  PERFORM set_config('canopy.list_count_scopes',
    ARRAY(SELECT DISTINCT s FROM unnest(coalesce(pending, '{}') || scopes) s WHERE s IS NOT NULL)::text, true);
END $$;
