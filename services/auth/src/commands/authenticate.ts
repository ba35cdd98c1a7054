import { auth, common } from "@canopy/protos";
import { expiryInstant, isExpired, PAT_PREFIX, tokenDigest } from "../domain/tokens";
import type { Deps } from "../deps";
import { findTokenWithUserByDigest, touchToken } from "../store/tokens";

const refused = (refusal: auth.Refusal): auth.AuthenticateResponse => ({ refusal });

/**
 * Token -> Actor, or why it is refused. Order as GitLab's API guard: unknown, expired (checked
 * before revoked), revoked, then the owner's state.
 */
export async function authenticate(deps: Deps, token: string): Promise<auth.AuthenticateResponse> {
  if (!token.startsWith(PAT_PREFIX) || token.length > 255) return refused(auth.Refusal.REFUSAL_UNKNOWN);
  const row = await findTokenWithUserByDigest(deps.pool, tokenDigest(deps.tokenKey, token));
  if (!row) return refused(auth.Refusal.REFUSAL_UNKNOWN);
  if (isExpired(row.expires_at)) return refused(auth.Refusal.REFUSAL_EXPIRED);
  if (row.revoked) return refused(auth.Refusal.REFUSAL_REVOKED);
  if (row.user_state !== "active") return refused(auth.Refusal.REFUSAL_USER_BLOCKED);
  touchToken(deps.pool, row.id).catch((err) => deps.log.warn({ err }, "could not record token use"));
  return {
    refusal: auth.Refusal.REFUSAL_UNSPECIFIED,
    actor: {
      userId: row.user_id,
      username: row.user_username,
      admin: row.user_admin,
      scopes: row.scopes,
      tokenKind: common.TokenKind.TOKEN_KIND_PERSONAL_ACCESS,
      tokenId: row.id,
      impersonatorId: 0,
    },
    validUntil: row.expires_at ? expiryInstant(row.expires_at) : undefined,
  };
}
