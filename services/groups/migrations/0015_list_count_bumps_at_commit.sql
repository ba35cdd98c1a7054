-- The kept list counts' generations (0008) were bumped in the writing statement, so each bumped row
-- stayed locked for the rest of the transaction (its other statements, each a round trip to the
-- service). Scope 0 is one row every group write bumps, and a user's scope is one row every write of
-- that user's memberships bumps (a bot creating groups: every one): under load such writes queued
-- behind each other. At 100 subgroups a second, made by one user, a bump waited 42-52 ms on average
-- and the groups service stopped answering.
--
-- Now a statement only asks for its bumps: the scopes are gathered in a transaction-local setting,
-- and a deferred trigger (queued by the transaction's first request) makes them all at commit, in
-- scope order, holding the rows' locks for the commit alone. The bumps are still part of the writing
-- transaction (a count and the generations it was kept under still become visible together), and
-- every transaction now locks its scopes in one order, at once, so two can no longer deadlock on them.
-- A rolled-back savepoint forgets its requests with the setting. A write that reads a kept count
-- before its own commit may see the old one (none does).
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
