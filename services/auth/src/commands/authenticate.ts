import { auth, common } from "@canopy/protos";
import { expiryInstant, isExpired, PAT_PREFIX, tokenDigests } from "../domain/tokens";
import type { Deps } from "../deps";
import { findTokenWithUserByDigest, moveTokenDigest, touchToken } from "../store/tokens";
import { listIdentities } from "../store/identities";
import { findUserById, toUser } from "../store/users";
import { lookupAccessToken } from "./oauth/live-token";
import { OAUTH_TOKEN } from "./oauth/secrets";

const refused = (refusal: auth.Refusal): auth.AuthenticateResponse => ({
  refusal,
  applicationUid: "",
  impersonation: false,
});

/**
 * A token whose owner is not active: the owner comes with the refusal, so that the gateway can say
 * why as GitLab does (blocked, pending approval, deactivated).
 */
async function ownerNotActive(deps: Deps, userId: number): Promise<auth.AuthenticateResponse> {
  const owner = await findUserById(deps.pool, userId);
  return { ...refused(auth.Refusal.REFUSAL_USER_BLOCKED), user: owner && toUser(owner) };
}

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
    impersonation: false,
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
  const digests = tokenDigests(deps, token);
  const row = await findTokenWithUserByDigest(deps.pool, digests);
  if (!row) return refused(auth.Refusal.REFUSAL_UNKNOWN);
  if (row.token_digest !== digests[0])
    await moveTokenDigest(deps.pool, row.id, digests[0]!).catch((err) =>
      deps.log.warn({ err, token_id: row.id }, "could not move a token's digest to the current key"),
    );
  if (isExpired(row.expires_at)) return refused(auth.Refusal.REFUSAL_EXPIRED);
  if (row.revoked) return refused(auth.Refusal.REFUSAL_REVOKED);
  // GitLab's `impersonation_enabled`: off, impersonation tokens stop working (and work again when on).
  if (row.impersonation && !deps.config.CANOPY_IMPERSONATION_ENABLED)
    return refused(auth.Refusal.REFUSAL_IMPERSONATION_DISABLED);
  if (row.user_state !== "active") return ownerNotActive(deps, row.user_id);
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
  const answer = await accepted(deps, actor, row.expires_at ? expiryInstant(row.expires_at) : undefined);
  return { ...answer, impersonation: row.impersonation };
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
  if (t.user_state !== "active") return ownerNotActive(deps, t.user_id);
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
