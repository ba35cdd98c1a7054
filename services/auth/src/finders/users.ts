import { isSelfOrAdmin, notFound, pageInfo, pageWindow } from "@canopy/kit";
import type { auth, common } from "@canopy/protos";
import type { Deps } from "../deps";
import * as users from "../store/users";

/** What others may not see of a user: only the user and administrators get these fields. */
function visibleTo(actor: common.Actor | undefined, user: auth.User): auth.User {
  if (isSelfOrAdmin(actor, user.id)) return user;
  return {
    ...user,
    email: "",
    note: "",
    twoFactorEnabled: false,
    lastSignInAt: undefined,
    confirmedAt: undefined,
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
  return visibleTo(actor, users.toUser(row));
}

export async function listUsers(deps: Deps, actor: common.Actor | undefined, request: auth.ListUsersRequest) {
  const window = pageWindow(request.page);
  const filter: users.UserFilter = {
    search: request.search || undefined,
    username: request.username || undefined,
    state: request.state === "active" || request.state === "blocked" ? request.state : undefined,
    searchPrivateEmails: Boolean(actor?.admin),
  };
  const [list, counted] = await Promise.all([
    users.listUsers(deps.pool, filter, window.limit, window.offset),
    users.countUsers(deps.pool, filter),
  ]);
  return { users: list.map((u) => visibleTo(actor, u)), page: pageInfo(window, counted) };
}
