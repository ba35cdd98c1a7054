-- Custom attributes of users (GitLab's user_custom_attributes): key/value strings administrators
-- set through the API and filter GET /users by. Gone with their user.
CREATE TABLE user_custom_attributes (
  user_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  key        text NOT NULL,
  value      text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, key)
);
-- The list filter looks up users by (key, value) pairs.
CREATE INDEX user_custom_attributes_key_value ON user_custom_attributes (key, value);
