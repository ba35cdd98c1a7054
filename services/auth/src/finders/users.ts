import { isSelfOrAdmin, notFound, pageInfo, pageWindow, requireAdmin } from "@canopy/kit";
import type { auth, common } from "@canopy/protos";
import type { Deps } from "../deps";
import { normalizeExternUid } from "../domain/identities";
import { findCustomAttributesOf } from "../store/custom-attributes";
import { listIdentities, listIdentitiesOf } from "../store/identities";
import * as userLists from "../store/user-lists";
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
    currentSignInAt: undefined,
    confirmedAt: undefined,
    identities: [],
  };
}

/** Each user with its custom attributes, when an administrator asked for them (GitLab ignores others' asking). */
async function withCustomAttributes(
  deps: Deps,
  actor: common.Actor | undefined,
  asked: boolean,
  list: auth.User[],
): Promise<auth.User[]> {
  if (!asked || !actor?.admin || !list.length) return list;
  const attributes = await findCustomAttributesOf(
    deps.pool,
    list.map((u) => u.id),
  );
  return list.map((u) => ({ ...u, customAttributes: attributes.get(u.id) ?? [] }));
}

export async function getUser(
  deps: Deps,
  actor: common.Actor | undefined,
  {
    id,
    username,
    withCustomAttributes: asked = false,
  }: { id: number; username: string; withCustomAttributes?: boolean },
) {
  const row = id
    ? await users.findUserById(deps.pool, id)
    : await users.findUserByUsername(deps.pool, username);
  if (!row) throw notFound("User");
  const identities = isSelfOrAdmin(actor, row.id) ? await listIdentities(deps.pool, row.id) : [];
  const seen = visibleTo(actor, users.toUser(row, identities));
  // Addresses and the count are for administrators alone: not even the user sees their own.
  const detailed = actor?.admin && actor.userId ? users.withSignInDetails(seen, row) : seen;
  const [user] = await withCustomAttributes(deps, actor, asked, [detailed]);
  return user!;
}

/**
 * GitLab's `active` and `blocked` filters ("active", "blocked", or both comma-separated): each one
 * narrows the list, so both together match nobody. `blocked` is User.blocked: blocked or LDAP-blocked.
 */
function statesOf(filter: string): userLists.UserFilter["states"] {
  let states: userLists.UserFilter["states"];
  for (const f of filter.split(",")) {
    const wanted =
      f === "active"
        ? ["active" as const]
        : f === "blocked"
          ? ["blocked" as const, "ldap_blocked" as const]
          : undefined;
    if (wanted) states = (states ?? wanted).filter((s) => wanted.some((w) => w === s));
  }
  return states;
}

export async function listUsers(deps: Deps, actor: common.Actor | undefined, request: auth.ListUsersRequest) {
  const window = pageWindow(request.page);
  // GitLab: looking a user up by an identity is for administrators (authenticated_as_admin!).
  const byIdentity = Boolean(request.externUid && request.provider);
  if (byIdentity) requireAdmin(actor);
  const filter: userLists.UserFilter = {
    // GitLab's User.search drops one leading "@" (a mention).
    search: request.search.replace(/^@/, "") || undefined,
    username: request.username || undefined,
    states: statesOf(request.state),
    // GitLab's UsersFinder: only administrators see blocked, LDAP-blocked and banned users.
    excludedStates: actor?.admin ? undefined : ["blocked", "banned", "ldap_blocked"],
    searchPrivateEmails: Boolean(actor?.admin),
    identity: byIdentity
      ? { provider: request.provider, externUid: normalizeExternUid(request.provider, request.externUid) }
      : undefined,
    // GitLab ignores the filter for anyone but administrators.
    customAttributes: actor?.admin ? request.customAttributes : undefined,
    searchOrder: request.searchOrder,
  };
  const [list, counted] = await Promise.all([
    userLists.listUsers(deps.pool, filter, window.limit, window.offset),
    userLists.countUsers(deps.pool, filter),
  ]);
  const identities = actor?.admin
    ? await listIdentitiesOf(
        deps.pool,
        list.map((u) => u.id),
      )
    : new Map();
  return {
    users: await withCustomAttributes(
      deps,
      actor,
      request.withCustomAttributes,
      list.map((u) => visibleTo(actor, users.toUser(u, identities.get(u.id) ?? []))),
    ),
    page: pageInfo(window, counted),
  };
}
