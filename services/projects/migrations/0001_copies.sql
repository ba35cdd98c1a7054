-- Copies of what other contexts own, fed by their events through durable consumers (src/events/).
-- Never written by this service's API: only the consumers write them.

-- Users, from auth's events: enough to render owners and to know who is blocked.
CREATE TABLE users (
  id         bigint PRIMARY KEY,
  username   text NOT NULL,
  name       text NOT NULL DEFAULT '',
  state      text NOT NULL DEFAULT 'active',
  admin      boolean NOT NULL DEFAULT false,
  external   boolean NOT NULL DEFAULT false,
  avatar_url text NOT NULL DEFAULT '',
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- Users auth deleted: a late hint must not bring one back (ids are never reused).
CREATE TABLE deleted_users (
  id bigint PRIMARY KEY
);

-- Namespaces (groups and users' personal namespaces), from the groups service's events.
-- `traversal_ids` is root -> self, as the groups service keeps it: the namespaces of a subtree rooted
-- at G are those whose traversal_ids contain G (the GIN index answers `traversal_ids @> ARRAY[G]`).
CREATE TABLE namespaces (
  id                     bigint PRIMARY KEY,
  kind                   text NOT NULL CHECK (kind IN ('group', 'user')),
  owner_id               bigint,
  parent_id              bigint,
  traversal_ids          bigint[] NOT NULL,
  path                   text NOT NULL,
  name                   text NOT NULL,
  full_path              text NOT NULL,
  full_name              text NOT NULL,
  visibility_level       smallint NOT NULL DEFAULT 0,
  marked_for_deletion_on date,
  updated_at             timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX namespaces_full_path_lower ON namespaces (lower(full_path));
CREATE INDEX namespaces_parent_path ON namespaces (parent_id, lower(path));
CREATE INDEX namespaces_traversal_ids ON namespaces USING gin (traversal_ids);
CREATE INDEX namespaces_owner_id ON namespaces (owner_id) WHERE owner_id IS NOT NULL;
CREATE INDEX namespaces_marked ON namespaces (id) WHERE marked_for_deletion_on IS NOT NULL;

-- Direct group memberships (groups' member events). Inherited access is computed, never copied.
CREATE TABLE group_members (
  namespace_id bigint NOT NULL,
  user_id      bigint NOT NULL,
  access_level smallint NOT NULL,
  expires_at   date,
  PRIMARY KEY (namespace_id, user_id)
);
CREATE INDEX group_members_user_id ON group_members (user_id);

-- Groups shared with groups (groups' share events): members of shared_with get shared_group, capped.
CREATE TABLE group_group_links (
  shared_group_id      bigint NOT NULL,
  shared_with_group_id bigint NOT NULL,
  group_access         smallint NOT NULL,
  expires_at           date,
  PRIMARY KEY (shared_group_id, shared_with_group_id)
);
CREATE INDEX group_group_links_shared_with ON group_group_links (shared_with_group_id);
