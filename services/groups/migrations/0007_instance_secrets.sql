-- Instance-wide secrets generated on first start (the key that seals runners tokens when
-- CANOPY_SECRET_KEY is unset), shared by every replica. Same shape as auth's table of that name.
CREATE TABLE instance_secrets (
  name  text PRIMARY KEY,
  value bytea NOT NULL
);
