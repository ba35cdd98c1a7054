import { invalid, notFound, requireAdmin, withTransaction, type Queryable } from "@canopy/kit";
import type { auth, common } from "@canopy/protos";
import { identityErrors, normalizeExternUid } from "../domain/identities";
import type { Deps } from "../deps";
import { deleteIdentity, upsertIdentity } from "../store/identities";
import { lockUserById } from "../store/users";
import { recordUserUpdated } from "./user-events";

/** The identity asked for by POST or PUT /users, validated; undefined when none is. */
export function requestedIdentity(a: auth.UserAttributes) {
  const errors = identityErrors(a.provider, a.externUid);
  if (Object.keys(errors).length) throw invalid(errors);
  if (a.provider === undefined) return undefined;
  const provider = a.provider.trim();
  return { provider, externUid: normalizeExternUid(provider, a.externUid!) };
}

/**
 * Gives the user the identity (or changes its extern_uid for that provider) inside the caller's
 * transaction. An extern_uid another user holds is refused as Rails' uniqueness validation refuses it.
 */
export async function assignIdentity(
  tx: Queryable,
  userId: number,
  identity: { provider: string; externUid: string },
): Promise<void> {
  if (!(await upsertIdentity(tx, userId, identity.provider, identity.externUid)))
    throw invalid({ "identities.extern_uid": ["has already been taken"] });
}

/** DELETE /users/:id/identities/:provider (administrators). */
export async function deleteUserIdentity(
  deps: Deps,
  actor: common.Actor | undefined,
  { id, provider }: { id: number; provider: string },
): Promise<auth.DeleteUserIdentityResponse> {
  requireAdmin(actor);
  await withTransaction(deps.pool, async (tx) => {
    const user = await lockUserById(tx, id);
    if (!user) throw notFound("User");
    if (!(await deleteIdentity(tx, id, provider))) throw notFound("Identity");
    // Consumers (the ldap service) keep a copy of identities: the snapshot carries them.
    await recordUserUpdated(tx, user, actor);
  });
  return {};
}
