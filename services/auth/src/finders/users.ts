import { isSelfOrAdmin, notFound, pageInfo, pageWindow, requireAdmin } from "@canopy/kit";
import type { auth, common } from "@canopy/protos";
import type { Deps } from "../deps";
import { normalizeExternUid } from "../domain/identities";
import { listIdentities, listIdentitiesOf } from "../store/identities";
import * as users from "../store/users";

/** What others may not see of a user: only the user and administrators get these fields (identities too). */
function visibleTo(actor: common.Actor | undefined, user: auth.User): auth.User {
  if (isSelfOrAdmin(actor, user.id)) return user;
  return {
    ...user,
    email: "",
    note: "",
    twoFactorEnabled: false,
    lastSignInAt: undefined,
    confirmedAt: undefined,
    identities: [],
  };
}

export async function getUser(
  deps: Deps,
  actor: common.Actor | undefined,
  { id, username }: { id: number; username: string },
) {
  const row = id
    ? await users.findUserById(deps.pool, id)
    : await users.findUserByUsername(deps.pool, username);
  if (!row) throw notFound("User");
  const identities = isSelfOrAdmin(actor, row.id) ? await listIdentities(deps.pool, row.id) : [];
  return visibleTo(actor, users.toUser(row, identities));
}

export async function listUsers(deps: Deps, actor: common.Actor | undefined, request: auth.ListUsersRequest) {
  const window = pageWindow(request.page);
  // GitLab: looking a user up by an identity is for administrators (authenticated_as_admin!).
  const byIdentity = Boolean(request.externUid && request.provider);
  if (byIdentity) requireAdmin(actor);
  const filter: users.UserFilter = {
    search: request.search || undefined,
    username: request.username || undefined,
    state: request.state === "active" || request.state === "blocked" ? request.state : undefined,
    searchPrivateEmails: Boolean(actor?.admin),
    identity: byIdentity
      ? { provider: request.provider, externUid: normalizeExternUid(request.provider, request.externUid) }
      : undefined,
  };
  const [list, counted] = await Promise.all([
    users.listUsers(deps.pool, filter, window.limit, window.offset),
    users.countUsers(deps.pool, filter),
  ]);
  const identities = actor?.admin
    ? await listIdentitiesOf(
        deps.pool,
        list.map((u) => u.id),
      )
    : new Map();
  return {
    users: list.map((u) => visibleTo(actor, users.toUser(u, identities.get(u.id) ?? []))),
    page: pageInfo(window, counted),
  };
}
