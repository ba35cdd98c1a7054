import { randomBytes } from "node:crypto";

/**
 * A name no other test, test file or test run uses: `unique("user_")` is `user_3f9a1c2b7e`. Test
 * files run in parallel against one database, one Redis and one stream, so every name they create
 * must be theirs alone. Letters, digits and `_` only: valid as a schema, durable or subject token.
 */
export const unique = (prefix = "t") => `${prefix}${randomBytes(5).toString("hex")}`;
