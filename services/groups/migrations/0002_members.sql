-- Members API.

-- Member lists page by membership id within a group (GitLab's default ORDER BY id).
CREATE INDEX members_namespace_id_id ON members (namespace_id, id);

-- Users auth deleted. The gateway's UserHint fills a copy that auth's events have not brought yet;
-- a hint read from auth just before the user was deleted must not bring the user back after
-- their user.deleted event was applied (ids are never reused, so a tombstone is forever).
CREATE TABLE deleted_users (
  id         bigint PRIMARY KEY,
  deleted_at timestamptz NOT NULL DEFAULT now()
);
