import { withTransaction } from "@canopy/kit";
import type { oauth } from "@canopy/protos";
import { missingParameter, OAuthRefusal, refuse } from "../../../domain/oauth/errors";
import { grantableTo } from "../../../domain/oauth/scopes";
import { isValidVerifier, verifierMatches } from "../../../domain/oauth/pkce";
import { tokenDigests } from "../../../domain/tokens";
import type { Deps } from "../../../deps";
import { lockGrantByDigest, markGrantUsed } from "../../../store/oauth-grants";
import { revokeTokensOfGrant } from "../../../store/oauth-tokens";
import { requireClient } from "../client-auth";
import { issueTokens } from "../issue";
import { announceRevoked } from "../revoke-tokens";

/**
 * grant_type=authorization_code. The code's row is locked, so of two concurrent exchanges one
 * wins and the other sees a used code. A used code presented again is a replay: by default every
 * token issued from it is revoked (RFC 6749 §4.1.2), then the request is refused.
 */
export async function authorizationCodeGrant(
  deps: Deps,
  req: oauth.TokenRequest,
): Promise<oauth.TokenResponse> {
  if (!req.code) throw new OAuthRefusal(missingParameter("code"));
  if (!req.redirectUri) throw new OAuthRefusal(missingParameter("redirect_uri"));
  const app = await requireClient(deps, req.client);
  const reply = await withTransaction(deps.pool, async (tx) => {
    const grant = await lockGrantByDigest(tx, tokenDigests(deps, req.code));
    if (!grant || grant.application_id !== app.id) return refuse("invalid_grant");
    if (grant.used_at) {
      if (deps.config.CANOPY_OAUTH_REVOKE_ON_CODE_REPLAY) {
        await announceRevoked(tx, await revokeTokensOfGrant(tx, grant.id));
      }
      return undefined;
    }
    if (grant.expires_at.getTime() <= Date.now()) return refuse("invalid_grant");
    if (grant.redirect_uri !== req.redirectUri) return refuse("invalid_grant");
    // A user blocked since the code was issued gets nothing for it (nor administrator scopes once demoted).
    if (grant.user_state !== "active") return refuse("invalid_grant");
    if (!grantableTo(grant.scopes, grant.user_admin)) return refuse("invalid_scope");
    if (grant.code_challenge) {
      if (!req.codeVerifier) throw new OAuthRefusal(missingParameter("code_verifier"));
      const ok =
        isValidVerifier(req.codeVerifier) &&
        verifierMatches(req.codeVerifier, grant.code_challenge, grant.code_challenge_method ?? "plain");
      if (!ok) return refuse("invalid_grant");
    } else if (req.codeVerifier) {
      // A verifier for a code issued without a challenge is a downgrade attempt.
      return refuse("invalid_grant");
    }
    await markGrantUsed(tx, grant.id);
    const issued = await issueTokens(deps, tx, {
      applicationId: app.id,
      clientId: app.uid,
      userId: grant.user_id,
      scopes: grant.scopes,
      grantId: grant.id,
      nonce: grant.nonce,
      authTime: grant.auth_time,
      withRefresh: true,
    });
    return issued.reply;
  });
  return reply ?? refuse("invalid_grant");
}
