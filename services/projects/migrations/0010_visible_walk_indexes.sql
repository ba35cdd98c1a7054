-- GET /projects walks the public and the internal projects apart, each in the list's order
-- (store/visible-walks.ts): newest first (the default) or by id (the order of keyset pages).
CREATE INDEX projects_public_created_at ON projects (created_at, id) WHERE visibility_level = 20;
CREATE INDEX projects_internal_created_at ON projects (created_at, id) WHERE visibility_level = 10;
CREATE INDEX projects_public_id ON projects (id) WHERE visibility_level = 20;
CREATE INDEX projects_internal_id ON projects (id) WHERE visibility_level = 10;
