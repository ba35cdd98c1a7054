-- Copies of what other contexts own, fed by their events through durable consumers (src/events/),
-- holding only what hook deliveries need: where an event fans out to (a group's ancestors) and what
-- the payloads say (names, paths, emails, owners). Never written by this service's API.

-- Groups, from the groups service's events. `traversal_ids` is root -> self: the groups whose hooks
-- an event of group G reaches are exactly those ids.
CREATE TABLE namespaces (
  id               bigint PRIMARY KEY,
  kind             text NOT NULL,
  parent_id        bigint,
  traversal_ids    bigint[] NOT NULL,
  path             text NOT NULL,
  name             text NOT NULL,
  full_path        text NOT NULL,
  full_name        text NOT NULL,
  visibility_level smallint NOT NULL DEFAULT 0,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);

-- Users, from auth's events: member and project payloads name them.
CREATE TABLE users (
  id       bigint PRIMARY KEY,
  username text NOT NULL,
  name     text NOT NULL DEFAULT '',
  email    text NOT NULL DEFAULT '',
  state    text NOT NULL DEFAULT 'active'
);

-- Direct group memberships: a member payload's timestamps, a project payload's owners.
CREATE TABLE group_members (
  namespace_id bigint NOT NULL,
  user_id      bigint NOT NULL,
  access_level smallint NOT NULL,
  expires_at   date,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (namespace_id, user_id)
);
CREATE INDEX group_members_owners ON group_members (namespace_id) WHERE access_level = 50;

-- Projects, from the projects service's events: a project payload's timestamps, the test endpoint's
-- sample project.
CREATE TABLE projects (
  id                  bigint PRIMARY KEY,
  namespace_id        bigint NOT NULL,
  traversal_ids       bigint[] NOT NULL,
  name                text NOT NULL,
  path                text NOT NULL,
  path_with_namespace text NOT NULL,
  visibility_level    smallint NOT NULL DEFAULT 0,
  archived            boolean NOT NULL DEFAULT false,
  creator_id          bigint,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX projects_traversal_ids ON projects USING gin (traversal_ids);
