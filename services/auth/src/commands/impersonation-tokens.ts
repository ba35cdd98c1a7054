import { badParameter, invalid, notFound, pageInfo, pageWindow, requireAdmin } from "@canopy/kit";
import type { common, impersonationTokens } from "@canopy/protos";
import type { Deps } from "../deps";
import { ADMIN_SCOPES, isPatScope } from "../domain/scopes";
import * as tokens from "../store/tokens";
import { findUserById } from "../store/users";
import { isCalendarDate, isoDate, issueToken, revokeStoredToken } from "./tokens";

/**
 * Impersonation tokens (GitLab lib/api/users.rb `impersonation_tokens`): personal access tokens an
 * administrator makes to act as a user, marked `impersonation`. They are made, stored, checked and
 * revoked by the personal access token machinery; this file holds only what differs: who may
 * (administrators), the model's validation messages, and that each is looked up under its user.
 */

const MAX_LIFETIME_DAYS = 365;

/** The user, or 404 "User Not Found" (GitLab's find_user_by_id), after the admin check. */
async function targetUser(deps: Deps, actor: common.Actor | undefined, userId: number) {
  requireAdmin(actor);
  const user = await findUserById(deps.pool, userId);
  if (!user) throw notFound("User");
  return user;
}

/** The user's impersonation token with this id, or 404 "Impersonation Token Not Found". */
async function findImpersonationToken(deps: Deps, userId: number, id: number) {
  const row = await tokens.findTokenById(deps.pool, id);
  if (!row || row.user_id !== userId || !row.impersonation) throw notFound("Impersonation Token");
  return row;
}

/**
 * The model's rules (app/models/personal_access_token.rb), all reported at once as GitLab's
 * render_validation_error! does: name and scopes present, scopes known (and no admin scope for a
 * user who is not one), an expiry present and within the instance's maximum lifetime.
 */
function validationErrors(t: impersonationTokens.CreateImpersonationTokenRequest, admin: boolean) {
  const errors: Record<string, string[]> = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  if (!t.name.trim()) add("name", "can't be blank");
  if (t.name.length > 255) add("name", "is too long (maximum is 255 characters)");
  if (!t.scopes.length) add("scopes", "can't be blank");
  else if (!t.scopes.every((s) => isPatScope(s) && (admin || !ADMIN_SCOPES.has(s))))
    add("scopes", "can only contain available scopes");
  if (!t.expiresAt) add("expires_at", "can't be blank");
  else {
    const latest = isoDate(new Date(Date.now() + MAX_LIFETIME_DAYS * 86_400_000));
    if (t.expiresAt > latest) add("expires_at", `must be before ${latest}`);
  }
  return errors;
}

export async function createImpersonationToken(
  deps: Deps,
  request: impersonationTokens.CreateImpersonationTokenRequest,
) {
  const user = await targetUser(deps, request.actor, request.userId);
  if (request.expiresAt && !isCalendarDate(request.expiresAt)) throw badParameter("expires_at is invalid");
  const errors = validationErrors(request, user.admin);
  if (Object.keys(errors).length) throw invalid(errors);
  return issueToken(deps, {
    userId: user.id,
    name: request.name,
    description: request.description,
    scopes: request.scopes,
    expiresAt: request.expiresAt,
    impersonation: true,
  });
}

export async function listImpersonationTokens(
  deps: Deps,
  request: impersonationTokens.ListImpersonationTokensRequest,
) {
  const user = await targetUser(deps, request.actor, request.userId);
  const window = pageWindow(request.page);
  const filter: tokens.TokenFilter = {
    userId: user.id,
    impersonation: true,
    state: request.state === "active" || request.state === "inactive" ? request.state : undefined,
  };
  const [list, counted] = await Promise.all([
    tokens.listTokens(deps.pool, filter, window.limit, window.offset),
    tokens.countTokens(deps.pool, filter),
  ]);
  return { tokens: list, page: pageInfo(window, counted) };
}

export async function getImpersonationToken(
  deps: Deps,
  request: impersonationTokens.GetImpersonationTokenRequest,
) {
  const user = await targetUser(deps, request.actor, request.userId);
  return tokens.toToken(await findImpersonationToken(deps, user.id, request.id));
}

/** Revoked at once everywhere, as any personal access token is (commands/tokens.ts). */
export async function revokeImpersonationToken(
  deps: Deps,
  request: impersonationTokens.RevokeImpersonationTokenRequest,
) {
  const user = await targetUser(deps, request.actor, request.userId);
  await revokeStoredToken(deps, request.actor, await findImpersonationToken(deps, user.id, request.id));
  return {};
}
