-- Copies of what other contexts own, fed by their events through durable consumers (src/events/).
-- Never written by this service's API. They answer who may manage a group's LDAP links (Owners of
-- the group or an ancestor, through a membership or a share) and which Canopy user a directory DN is.

-- Users, from auth's events.
CREATE TABLE users (
  id         bigint PRIMARY KEY,
  username   text NOT NULL,
  state      text NOT NULL DEFAULT 'active',
  admin      boolean NOT NULL DEFAULT false,
  external   boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- A user's LDAP identities, from auth's events (GitLab's identities: provider + extern_uid, the
-- normalized DN). `dn_key` is the DN lower-cased, for GitLab's case-insensitive DN match.
CREATE TABLE identities (
  user_id     bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  provider    text NOT NULL,
  extern_uid  text NOT NULL,
  dn_key      text NOT NULL,
  PRIMARY KEY (user_id, provider)
);
CREATE INDEX identities_provider_dn ON identities (provider, dn_key);

-- Groups, from the groups service's events (personal namespaces are not copied: they have no links).
-- `traversal_ids` is root -> self.
CREATE TABLE namespaces (
  id               bigint PRIMARY KEY,
  parent_id        bigint,
  traversal_ids    bigint[] NOT NULL,
  full_path        text NOT NULL,
  name             text NOT NULL,
  visibility_level smallint NOT NULL DEFAULT 0,
  updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX namespaces_full_path_lower ON namespaces (lower(full_path));
CREATE INDEX namespaces_traversal_ids ON namespaces USING gin (traversal_ids);

-- Direct group memberships. Inherited access is computed from the ancestors' rows.
CREATE TABLE group_members (
  namespace_id bigint NOT NULL,
  user_id      bigint NOT NULL,
  access_level smallint NOT NULL,
  expires_at   date,
  PRIMARY KEY (namespace_id, user_id)
);
CREATE INDEX group_members_user_id ON group_members (user_id);

-- Groups shared with groups: members of shared_with get shared_group (and below), capped.
CREATE TABLE group_group_links (
  shared_group_id      bigint NOT NULL,
  shared_with_group_id bigint NOT NULL,
  group_access         smallint NOT NULL,
  expires_at           date,
  PRIMARY KEY (shared_group_id, shared_with_group_id)
);
CREATE INDEX group_group_links_shared_with ON group_group_links (shared_with_group_id);
