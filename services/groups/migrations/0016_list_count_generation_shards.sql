-- A kept list count's generations are sums over shards. Every group write bumped scope 0 at commit
-- (0015/0012), so each waited for the writer before it to finish committing (its WAL flush included)
-- while holding its own tree's lock: at 100 subgroups a second the API's p99 was 1.6 s, and most of
-- it was this queue. Now a transaction bumps the shard of its connection (pg_backend_pid() % 16):
-- writers on different connections no longer queue on one row. A reader sums a scope's shards in
-- the snapshot it counts in: any bump committed after that snapshot raises the sum, so an entry
-- kept under it no longer matches, whatever order the bumps committed in. Rows are still never
-- deleted, so a sum never goes back to a value an old entry holds.
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
