import { randomBytes } from "node:crypto";
import { hashPassword } from "../domain/passwords";
import { conflict, invalid, notFound, recordEvent, requireAdmin, withTransaction } from "@canopy/kit";
import { AUTH_EVENTS, auth, type common, type userAvatars } from "@canopy/protos";
import { snapshotChanged } from "../domain/user-snapshot";
import { validateUser } from "../domain/users";
import type { Deps } from "../deps";
import * as users from "../store/users";
import { revokeTokensOfUser } from "../store/oauth-tokens";
import { announceRevoked } from "./oauth/revoke-tokens";
import { listIdentities } from "../store/identities";
import { assignIdentity, requestedIdentity } from "./identities";
import { recordUserCreated, recordUserUpdated } from "./user-events";
import { checkedAvatar, storeAvatar } from "./avatars";

/** Maps attributes to columns, hashing the password. */
async function columnsOf(a: auth.UserAttributes): Promise<users.UserColumns> {
  const columns: users.UserColumns = {};
  for (const [attr, column] of Object.entries(users.WRITABLE_COLUMNS)) {
    const value = a[attr as keyof auth.UserAttributes];
    if (value !== undefined) columns[column] = value;
  }
  if (a.password !== undefined) columns.password_hash = await hashPassword(a.password);
  return columns;
}

async function assertIdentityFree(deps: Deps, a: auth.UserAttributes, exceptId = 0) {
  const taken = await users.takenIdentity(deps.pool, a.username, a.email, exceptId);
  // GitLab checks the email first.
  if (taken.email) throw conflict("Email has already been taken");
  if (taken.username) throw conflict("Username has already been taken");
}

/**
 * A concurrent write can still hit the unique indexes. PostgreSQL names whichever index it checked
 * first (username's), so look again to answer as the check above does: email first.
 */
async function uniqueViolationToConflict(
  deps: Deps,
  a: auth.UserAttributes,
  exceptId: number,
  err: unknown,
): Promise<never> {
  const e = err as { code?: string; constraint?: string };
  if (
    e.code === "23505" &&
    (e.constraint === "users_email_lower" || e.constraint === "users_username_lower")
  ) {
    await assertIdentityFree(deps, a, exceptId);
    throw conflict(
      e.constraint === "users_email_lower"
        ? "Email has already been taken"
        : "Username has already been taken",
    );
  }
  throw err;
}

export async function createUser(
  deps: Deps,
  actor: common.Actor | undefined,
  attributes: auth.UserAttributes,
  upload?: userAvatars.UserAvatarUpload,
) {
  requireAdmin(actor);
  const a = { ...attributes, password: attributes.password ?? randomBytes(24).toString("base64url") };
  const errors = validateUser(a, true);
  const avatar = checkedAvatar(upload, errors);
  if (Object.keys(errors).length) throw invalid(errors);
  const identity = requestedIdentity(a);
  await assertIdentityFree(deps, a);
  const columns = await columnsOf(a);
  if (a.skipConfirmation !== false) columns.confirmed_at = new Date();
  const row = await withTransaction(deps.pool, async (tx) => {
    const inserted = await users
      .insertUser(tx, columns)
      .catch((err) => uniqueViolationToConflict(deps, a, 0, err));
    const created = avatar ? await storeAvatar(tx, inserted, avatar) : inserted;
    if (identity) await assignIdentity(tx, created.id, identity);
    await recordUserCreated(tx, created, actor);
    return created;
  });
  return users.toUser(row, await listIdentities(deps.pool, row.id));
}

export async function updateUser(
  deps: Deps,
  actor: common.Actor | undefined,
  {
    id,
    attributes: a,
    avatar: upload,
  }: { id: number; attributes: auth.UserAttributes; avatar?: userAvatars.UserAvatarUpload },
) {
  requireAdmin(actor);
  if (!(await users.findUserById(deps.pool, id))) throw notFound("User");
  const errors = validateUser(a, false);
  const avatar = checkedAvatar(upload, errors);
  if (Object.keys(errors).length) throw invalid(errors);
  const identity = requestedIdentity(a);
  await assertIdentityFree(deps, a, id);
  const columns = await columnsOf(a);
  const row = await withTransaction(deps.pool, async (tx) => {
    // Locked, so `before` is what this update changes and not what a concurrent one left.
    const before = await users.lockUserById(tx, id);
    if (!before) throw notFound("User");
    const written = Object.keys(columns).length
      ? await users.updateUser(tx, id, columns).catch((err) => uniqueViolationToConflict(deps, a, id, err))
      : before;
    if (!written) throw notFound("User");
    const updated = avatar ? await storeAvatar(tx, written, avatar) : written;
    if (identity) await assignIdentity(tx, id, identity);
    // Only what consumers keep is announced. The gateway that made this call drops its cached copy of
    // the user at once; others may serve the old email or bio on GET /user until their cache expires.
    if (identity || snapshotChanged(users.toUserSnapshot(before), users.toUserSnapshot(updated)))
      await recordUserUpdated(tx, updated, actor);
    return updated;
  });
  return users.toUser(row, await listIdentities(deps.pool, row.id));
}

export async function deleteUser(deps: Deps, actor: common.Actor | undefined, { id }: { id: number }) {
  requireAdmin(actor);
  await withTransaction(deps.pool, async (tx) => {
    // Its OAuth tokens (and its applications') leave with it: every gateway must drop them now.
    await announceRevoked(tx, await revokeTokensOfUser(tx, id));
    if (!(await users.deleteUser(tx, id))) throw notFound("User");
    await recordEvent(tx, AUTH_EVENTS.userDeleted, { userId: id }, actor);
  });
}
