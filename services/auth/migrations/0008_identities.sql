-- How users sign in elsewhere (GitLab's identities): for LDAP, provider "ldapmain" and extern_uid the
-- normalized DN. One identity per provider per user; an extern_uid belongs to one user per provider,
-- compared case-insensitively as GitLab's Identity.with_extern_uid compares it.
CREATE TABLE identities (
  id bigserial PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  provider text NOT NULL CHECK (provider <> ''),
  extern_uid text NOT NULL CHECK (extern_uid <> ''),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, provider)
);
CREATE UNIQUE INDEX identities_provider_extern_uid ON identities (provider, lower(extern_uid));
