-- Devise's trackable fields, as GitLab keeps them on users: each completed web sign-in moves
-- current_* to last_* and sets current_* to now and the browser's address, and counts one more.
-- The addresses are GitLab's inet columns; the service stores only what parses as an address.
ALTER TABLE users
  ADD COLUMN current_sign_in_at timestamptz,
  ADD COLUMN current_sign_in_ip inet,
  ADD COLUMN last_sign_in_ip    inet,
  ADD COLUMN sign_in_count      integer NOT NULL DEFAULT 0;

-- Until now last_sign_in_at held the latest sign-in, which is current_sign_in_at's meaning; it stays
-- as the "previous" one too, as Devise leaves it after a first sign-in. How many sign-ins came before
-- was not kept: at least one.
UPDATE users SET current_sign_in_at = last_sign_in_at, sign_in_count = 1
 WHERE last_sign_in_at IS NOT NULL;
