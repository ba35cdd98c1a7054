import { withTransaction } from "@canopy/kit";
import type { oauth } from "@canopy/protos";
import { missingParameter, OAuthRefusal, refuse } from "../../../domain/oauth/errors";
import { grantableTo, parseScopes } from "../../../domain/oauth/scopes";
import { tokenDigests } from "../../../domain/tokens";
import type { Deps } from "../../../deps";
import { lockByRefreshDigest, retireRotated, revokeTokenFamily } from "../../../store/oauth-tokens";
import { authenticateClient } from "../client-auth";
import { issueTokens, openReply, sealReply } from "../issue";
import { announceRevoked } from "../revoke-tokens";

const sameScopes = (a: string[], b: string[]) => a.length === b.length && a.every((s) => b.includes(s));

type Outcome = { reply: oauth.TokenResponse } | { reused: boolean };

/**
 * grant_type=refresh_token with rotation: every refresh returns a new pair and retires the old one.
 * Parallel refreshes of one token queue on its row lock. Within the grace window a repeat gets the
 * very same new pair (workers racing on one token all succeed); after it, reuse of a retired refresh
 * token is treated as theft and revokes the whole family.
 */
export async function refreshTokenGrant(deps: Deps, req: oauth.TokenRequest): Promise<oauth.TokenResponse> {
  if (!req.refreshToken) throw new OAuthRefusal(missingParameter("refresh_token"));
  const client = await authenticateClient(deps, req.client);
  const cfg = deps.config;
  const outcome = await withTransaction<Outcome>(deps.pool, async (tx) => {
    const old = await lockByRefreshDigest(tx, tokenDigests(deps, req.refreshToken));
    if (!old) return refuse("invalid_grant");
    if (old.application_id !== null && old.application_id !== client?.id) return refuse("invalid_grant");
    if (old.rotated_at) {
      const age = Date.now() - old.rotated_at.getTime();
      const again = old.rotation_reply && age <= cfg.CANOPY_OAUTH_REFRESH_GRACE_SECONDS * 1000;
      const reply = again ? openReply(req.refreshToken, old.rotation_reply!) : undefined;
      if (reply) return { reply };
      if (!cfg.CANOPY_OAUTH_REFRESH_REUSE_DETECTION) return refuse("invalid_grant");
      return { reused: (await announceRevoked(tx, await revokeTokenFamily(tx, old.family_id))) > 0 };
    }
    if (old.revoked_at) return refuse("invalid_grant");
    if (old.refresh_expires_at && old.refresh_expires_at.getTime() <= Date.now())
      return refuse("invalid_grant");
    if (old.user_id && old.user_state !== "active") return refuse("invalid_grant");
    // RFC 6749 §6: the refresh token carries the grant's scope; the access token may ask for less.
    const granted = old.refresh_scopes ?? old.scopes;
    const requested = parseScopes(req.scope);
    if (!requested) return refuse("invalid_scope");
    if (!requested.every((s) => granted.includes(s))) return refuse("invalid_scope");
    const scopes = requested.length ? requested : granted;
    if (!grantableTo(scopes, Boolean(old.user_admin))) return refuse("invalid_scope");
    const issued = await issueTokens(deps, tx, {
      applicationId: old.application_id,
      // Checked above: a token of an application is refreshed only by that application.
      clientId: old.application_id ? client!.uid : null,
      userId: old.user_id,
      scopes,
      refreshScopes: sameScopes(scopes, granted) ? null : granted,
      familyId: old.family_id,
      grantId: old.grant_id,
      authTime: old.auth_time,
      withRefresh: true,
    });
    // The old pair retires now; its access token stops working on every gateway.
    const sealed = sealReply(req.refreshToken, issued.reply);
    await announceRevoked(tx, await retireRotated(tx, old.id, issued.row.id, sealed));
    return { reply: issued.reply };
  });
  if ("reply" in outcome) return outcome.reply;
  return refuse("invalid_grant");
}
