import { isSelfOrAdmin, notFound, pageInfo, pageWindow, requireSignedIn, unauthenticated } from "@canopy/kit";
import type { auth, common } from "@canopy/protos";
import type { Deps } from "../deps";
import * as tokens from "../store/tokens";

/** GitLab answers 401 to a non-admin asking for a token that is missing or not theirs. */
export async function getToken(deps: Deps, actor: common.Actor | undefined, { id }: { id: number }) {
  const caller = requireSignedIn(actor);
  const row = await tokens.findTokenById(deps.pool, id);
  if (!row) throw caller.admin ? notFound() : unauthenticated();
  if (!isSelfOrAdmin(caller, row.user_id)) throw unauthenticated();
  return tokens.toToken(row);
}

export async function listTokens(
  deps: Deps,
  actor: common.Actor | undefined,
  request: auth.ListPersonalAccessTokensRequest,
) {
  const caller = requireSignedIn(actor);
  if (request.userId && !isSelfOrAdmin(caller, request.userId)) throw unauthenticated();
  const window = pageWindow(request.page);
  const filter: tokens.TokenFilter = {
    userId: caller.admin ? request.userId || undefined : caller.userId,
    state: request.state === "active" || request.state === "inactive" ? request.state : undefined,
    revoked: request.revoked,
    search: request.search || undefined,
    // GitLab lists a user their own tokens without the impersonation tokens made for them.
    impersonation: caller.admin ? undefined : false,
  };
  const [list, counted] = await Promise.all([
    tokens.listTokens(deps.pool, filter, window.limit, window.offset),
    tokens.countTokens(deps.pool, filter),
  ]);
  return { tokens: list, page: pageInfo(window, counted) };
}
