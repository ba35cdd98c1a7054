-- Users and personal access tokens. Secrets are never stored in clear: passwords as argon2id hashes,
-- tokens as a keyed hash (HMAC-SHA256 with the instance key).
CREATE TABLE users (
  id                 bigserial PRIMARY KEY,
  username           text NOT NULL,
  email              text NOT NULL,
  name               text NOT NULL,
  state              text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'blocked')),
  admin              boolean NOT NULL DEFAULT false,
  two_factor_enabled boolean NOT NULL DEFAULT false,
  password_hash      text,
  bio                text NOT NULL DEFAULT '',
  location           text NOT NULL DEFAULT '',
  public_email       text NOT NULL DEFAULT '',
  website_url        text NOT NULL DEFAULT '',
  organization       text NOT NULL DEFAULT '',
  job_title          text NOT NULL DEFAULT '',
  note               text NOT NULL DEFAULT '',
  projects_limit     integer NOT NULL DEFAULT 100000,
  can_create_group   boolean NOT NULL DEFAULT true,
  external           boolean NOT NULL DEFAULT false,
  private_profile    boolean NOT NULL DEFAULT false,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  confirmed_at       timestamptz,
  last_sign_in_at    timestamptz
);
-- GitLab compares usernames and emails case-insensitively.
CREATE UNIQUE INDEX users_username_lower ON users (lower(username));
CREATE UNIQUE INDEX users_email_lower ON users (lower(email));

CREATE TABLE personal_access_tokens (
  id           bigserial PRIMARY KEY,
  user_id      bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name         text NOT NULL,
  description  text NOT NULL DEFAULT '',
  scopes       text[] NOT NULL,
  expires_at   date,
  revoked      boolean NOT NULL DEFAULT false,
  token_digest text NOT NULL UNIQUE,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz
);
CREATE INDEX personal_access_tokens_user ON personal_access_tokens (user_id, id);

-- Instance-wide secrets generated on first start (e.g. the token hashing key), shared by replicas.
CREATE TABLE instance_secrets (
  name  text PRIMARY KEY,
  value bytea NOT NULL
);
