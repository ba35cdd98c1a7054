-- Users' avatars (GitLab's users.avatar, an upload): the bytes apart from the users row, so that
-- reading users never drags images along; the file name on the row, since every user entity shows
-- the avatar's URL (/uploads/-/system/user/avatar/:id/:filename). Gone with their user.
ALTER TABLE users ADD COLUMN avatar_filename text;

CREATE TABLE user_avatars (
  user_id      bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  filename     text NOT NULL,
  -- Decided from the bytes at upload (never the client's claim), and served as such.
  content_type text NOT NULL,
  content      bytea NOT NULL,
  updated_at   timestamptz NOT NULL DEFAULT now()
);
