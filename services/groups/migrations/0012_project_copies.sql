-- Projects, as the projects service's events describe them (src/events/projects.ts): what the
-- group rules need of them (a subgroup may not take the path of a project in the same parent; a
-- group may not be less visible than a project directly in it) and their sizes, which the group
-- statistics sum. Written only by that consumer.
CREATE TABLE projects (
  id                      bigint PRIMARY KEY,
  namespace_id            bigint NOT NULL,
  path                    text NOT NULL,
  visibility_level        smallint NOT NULL,
  storage_size            bigint NOT NULL DEFAULT 0,
  repository_size         bigint NOT NULL DEFAULT 0,
  wiki_size               bigint NOT NULL DEFAULT 0,
  lfs_objects_size        bigint NOT NULL DEFAULT 0,
  job_artifacts_size      bigint NOT NULL DEFAULT 0,
  packages_size           bigint NOT NULL DEFAULT 0,
  snippets_size           bigint NOT NULL DEFAULT 0,
  pipeline_artifacts_size bigint NOT NULL DEFAULT 0,
  uploads_size            bigint NOT NULL DEFAULT 0
);
CREATE INDEX projects_namespace_path ON projects (namespace_id, lower(path));
