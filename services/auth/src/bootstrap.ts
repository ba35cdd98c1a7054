import { randomBytes } from "node:crypto";
import { withAdvisoryLock, withTransaction } from "@canopy/kit";
import { recordUserCreated } from "./commands/user-events";
import { hashPassword } from "./domain/passwords";
import { tokenDigests } from "./domain/tokens";
import type { Deps } from "./deps";
import { insertRootToken, moveRootTokenDigest } from "./store/tokens";
import { findUserByUsername, insertUser } from "./store/users";

export const ROOT_TOKEN_NAME = "canopy-root-token";

/**
 * First start: the administrator `root`, and root's token when CANOPY_ROOT_TOKEN is set. Safe to run
 * on every start of every replica: it holds an advisory lock and creates only what is missing.
 */
export async function bootstrap(deps: Deps, options: { rootPassword?: string; rootToken?: string }) {
  await withAdvisoryLock(deps.pool, "canopy:auth:bootstrap", async () => {
    let root = await findUserByUsername(deps.pool, "root");
    if (!root) {
      const password = options.rootPassword ?? randomBytes(18).toString("base64url");
      const passwordHash = await hashPassword(password);
      root = await withTransaction(deps.pool, async (tx) => {
        const user = await insertUser(tx, {
          username: "root",
          email: "admin@example.com",
          name: "Administrator",
          admin: true,
          password_hash: passwordHash,
          confirmed_at: new Date(),
        });
        await recordUserCreated(tx, user);
        return user;
      });
      if (!options.rootPassword) {
        // Shown once, on purpose: there is no other way to learn it. Written to stderr, not the log stream.
        process.stderr.write(`\nCanopy created the administrator "root" with the password: ${password}\n\n`);
      }
      deps.log.info({ user_id: root.id }, "created administrator root");
    }
    if (options.rootToken) {
      const [digest, previous] = tokenDigests(deps, options.rootToken);
      // After a key rotation the token is already there, under the previous key's digest.
      if (previous) await moveRootTokenDigest(deps.pool, previous, digest!);
      if (await insertRootToken(deps.pool, { userId: root.id, name: ROOT_TOKEN_NAME, digest: digest! }))
        deps.log.info("created root's token from CANOPY_ROOT_TOKEN");
    }
  });
}
