import { auth, common } from "@canopy/protos";
import { expiryInstant, isExpired, PAT_PREFIX, tokenDigest } from "../domain/tokens";
import type { Deps } from "../deps";
import { findTokenWithUserByDigest, touchToken } from "../store/tokens";
import { listIdentities } from "../store/identities";
import { findUserById, toUser } from "../store/users";
import { lookupAccessToken } from "./oauth/live-token";
import { OAUTH_TOKEN } from "./oauth/secrets";

const refused = (refusal: auth.Refusal): auth.AuthenticateResponse => ({ refusal, applicationUid: "" });

async function accepted(
  deps: Deps,
  actor: common.Actor,
  validUntil?: Date,
  oauthToken?: { applicationUid: string; tokenCreatedAt: Date },
): Promise<auth.AuthenticateResponse> {
  // GET /user is answered from this (cached) answer, and shows the user's identities.
  const [owner, identities] = await Promise.all([
    findUserById(deps.pool, actor.userId),
    listIdentities(deps.pool, actor.userId),
  ]);
  if (!owner) return refused(auth.Refusal.REFUSAL_UNKNOWN);
  return {
    refusal: auth.Refusal.REFUSAL_UNSPECIFIED,
    actor,
    validUntil,
    user: toUser(owner, identities),
    applicationUid: oauthToken?.applicationUid ?? "",
    tokenCreatedAt: oauthToken?.tokenCreatedAt,
  };
}

/**
 * Token -> Actor, or why it is refused: a personal access token (`glpat-`) or an OAuth access token
 * (64 hex). Order as GitLab's API guard: unknown, expired (checked before revoked), revoked, then the
 * owner's state. A token without a user (client credentials) cannot call the API.
 */
export async function authenticate(deps: Deps, token: string): Promise<auth.AuthenticateResponse> {
  if (token.startsWith(PAT_PREFIX) && token.length <= 255) return personalAccessToken(deps, token);
  if (OAUTH_TOKEN.test(token)) return oauthToken(deps, token);
  return refused(auth.Refusal.REFUSAL_UNKNOWN);
}

async function personalAccessToken(deps: Deps, token: string) {
  const row = await findTokenWithUserByDigest(deps.pool, tokenDigest(deps.tokenKey, token));
  if (!row) return refused(auth.Refusal.REFUSAL_UNKNOWN);
  if (isExpired(row.expires_at)) return refused(auth.Refusal.REFUSAL_EXPIRED);
  if (row.revoked) return refused(auth.Refusal.REFUSAL_REVOKED);
  if (row.user_state !== "active") return refused(auth.Refusal.REFUSAL_USER_BLOCKED);
  touchToken(deps.pool, row.id).catch((err) => deps.log.warn({ err }, "could not record token use"));
  const actor = {
    userId: row.user_id,
    username: row.user_username,
    admin: row.user_admin,
    external: row.user_external,
    scopes: row.scopes,
    tokenKind: common.TokenKind.TOKEN_KIND_PERSONAL_ACCESS,
    tokenId: row.id,
    impersonatorId: 0,
  };
  return accepted(deps, actor, row.expires_at ? expiryInstant(row.expires_at) : undefined);
}

async function oauthToken(deps: Deps, token: string) {
  const found = await lookupAccessToken(deps, token);
  if (!found.live) {
    if (found.why === "expired") return refused(auth.Refusal.REFUSAL_EXPIRED);
    if (found.why === "revoked") return refused(auth.Refusal.REFUSAL_REVOKED);
    return refused(auth.Refusal.REFUSAL_UNKNOWN);
  }
  const t = found.token;
  if (!t.user_id) return refused(auth.Refusal.REFUSAL_UNKNOWN);
  if (t.user_state !== "active") return refused(auth.Refusal.REFUSAL_USER_BLOCKED);
  const actor = {
    userId: t.user_id,
    username: t.username ?? "",
    admin: Boolean(t.user_admin),
    external: Boolean(t.user_external),
    scopes: t.scopes,
    tokenKind: common.TokenKind.TOKEN_KIND_OAUTH,
    tokenId: t.id,
    impersonatorId: 0,
  };
  const expiresAt =
    t.expires_in === null ? undefined : new Date(t.created_at.getTime() + t.expires_in * 1000);
  return accepted(deps, actor, expiresAt, {
    applicationUid: t.application_uid ?? "",
    tokenCreatedAt: t.created_at,
  });
}
