-- The list-count triggers run in whatever session writes the row, whose search_path need not name
-- this schema (an administrator's psql, another schema's tooling): each function keeps the
-- search_path it was created under (this service's schema, set by the migration runner).
ALTER FUNCTION bump_list_count_generations(bigint[]) SET search_path FROM CURRENT;
ALTER FUNCTION list_counts_namespaces_changed() SET search_path FROM CURRENT;
ALTER FUNCTION list_counts_namespaces_deleting() SET search_path FROM CURRENT;
ALTER FUNCTION list_counts_members_changed() SET search_path FROM CURRENT;
ALTER FUNCTION list_counts_users_changed() SET search_path FROM CURRENT;
ALTER FUNCTION list_counts_groups_changed() SET search_path FROM CURRENT;
