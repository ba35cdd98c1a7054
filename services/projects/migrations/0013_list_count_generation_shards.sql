-- A kept list count's generations are sums over shards, as the groups service's migration 0016
-- explains: a transaction bumps the shard of its connection (pg_backend_pid() % 16), so writers on
-- different connections no longer queue at commit on scope 0's one row (every write of projects and
-- of the namespaces' copies bumps it). A reader sums a scope's shards in the snapshot it counts in:
-- any bump committed after that snapshot raises the sum. Rows are still never deleted.
ALTER TABLE list_count_generations ADD COLUMN shard smallint NOT NULL DEFAULT 0;
ALTER TABLE list_count_generations DROP CONSTRAINT list_count_generations_pkey;
ALTER TABLE list_count_generations ADD PRIMARY KEY (scope, shard);

CREATE OR REPLACE FUNCTION list_counts_bump_at_commit() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO list_count_generations AS g (scope, shard, generation)
  SELECT DISTINCT s, pg_backend_pid() % 16, 1
    FROM unnest(NULLIF(current_setting('canopy.list_count_scopes', true), '')::bigint[]) s ORDER BY s
  ON CONFLICT (scope, shard) DO UPDATE SET generation = g.generation + 1;
  PERFORM set_config('canopy.list_count_scopes', '', true);
  DELETE FROM list_count_bump_requests WHERE id = NEW.id;
  RETURN NULL;
END $$;
