-- RFC 6749 §6: a refresh that asks for a narrower scope gives the new access token that scope, but
-- the refresh token keeps the grant's original scope, so a later refresh may ask for it again.
-- NULL means the same as `scopes` (every token issued before this column, and most after).
ALTER TABLE oauth_tokens ADD COLUMN refresh_scopes text[];
