-- OAuth 2.0 / OpenID Connect. Codes, tokens and client secrets are stored only as keyed hashes.
ALTER TABLE users
  ADD COLUMN failed_attempts integer NOT NULL DEFAULT 0,
  ADD COLUMN locked_until timestamptz;

CREATE TABLE oauth_applications (
  id            bigserial PRIMARY KEY,
  name          text NOT NULL,
  uid           text NOT NULL UNIQUE,
  secret_digest text NOT NULL,
  redirect_uri  text NOT NULL,
  scopes        text[] NOT NULL,
  confidential  boolean NOT NULL DEFAULT true,
  trusted       boolean NOT NULL DEFAULT false,
  -- NULL for instance-wide applications.
  owner_id      bigint REFERENCES users (id) ON DELETE CASCADE,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oauth_applications_owner ON oauth_applications (owner_id);

-- Authorization codes.
CREATE TABLE oauth_grants (
  id                    bigserial PRIMARY KEY,
  application_id        bigint NOT NULL REFERENCES oauth_applications (id) ON DELETE CASCADE,
  user_id               bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  code_digest           text NOT NULL UNIQUE,
  redirect_uri          text NOT NULL,
  scopes                text[] NOT NULL,
  code_challenge        text,
  code_challenge_method text,
  nonce                 text,
  auth_time             timestamptz,
  expires_at            timestamptz NOT NULL,
  used_at               timestamptz,
  created_at            timestamptz NOT NULL DEFAULT now()
);

-- Access tokens with their refresh tokens. A family is every token descended from one grant (code,
-- password or client credentials); reuse of a rotated refresh token revokes the whole family.
CREATE TABLE oauth_tokens (
  id                 bigserial PRIMARY KEY,
  family_id          bigint,
  application_id     bigint REFERENCES oauth_applications (id) ON DELETE CASCADE,
  user_id            bigint REFERENCES users (id) ON DELETE CASCADE,
  grant_id           bigint REFERENCES oauth_grants (id) ON DELETE SET NULL,
  token_digest       text NOT NULL UNIQUE,
  refresh_digest     text UNIQUE,
  scopes             text[] NOT NULL,
  expires_in         integer,
  refresh_expires_at timestamptz,
  nonce              text,
  auth_time          timestamptz,
  created_at         timestamptz NOT NULL DEFAULT now(),
  revoked_at         timestamptz,
  -- Set when the refresh token was exchanged: the successor, and the successor's answer encrypted
  -- with a key derived from this refresh token, for an identical reply within the grace window.
  rotated_at         timestamptz,
  replaced_by        bigint REFERENCES oauth_tokens (id) ON DELETE SET NULL,
  rotation_reply     bytea
);
CREATE INDEX oauth_tokens_family ON oauth_tokens (family_id);
CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id);
CREATE INDEX oauth_tokens_user_app ON oauth_tokens (user_id, application_id);

-- RS256 keys for ID tokens. The newest signs; retired keys stay published until what they signed expires.
CREATE TABLE oauth_signing_keys (
  kid         text PRIMARY KEY,
  private_jwk jsonb NOT NULL,
  public_jwk  jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  retired_at  timestamptz
);
