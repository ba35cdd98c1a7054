import { withTransaction } from "@canopy/kit";
import { oauth } from "@canopy/protos";
import { refuse } from "../../../domain/oauth/errors";
import { effectiveScopes, grantableTo, SERVER_SCOPES } from "../../../domain/oauth/scopes";
import type { Deps } from "../../../deps";
import { verifyAnyPassword } from "../../ldap-sign-in";
import { authenticateClient } from "../client-auth";
import { issueTokens } from "../issue";

/**
 * grant_type=password (resource owner password credentials), as GitLab allows it: client
 * credentials optional while CANOPY_OAUTH_ROPC_WITHOUT_CLIENT is on, but a client_id that is sent
 * must authenticate; users with two-factor authentication are refused; failures count towards the
 * account lock like the sign-in page's. With LDAP configured, directory passwords count too (see
 * verifyAnyPassword).
 */
export async function passwordGrant(deps: Deps, req: oauth.TokenRequest): Promise<oauth.TokenResponse> {
  if (!deps.config.CANOPY_OAUTH_PASSWORD_GRANT) return refuse("unsupported_grant_type");
  const app = await authenticateClient(deps, req.client);
  if (!app && !deps.config.CANOPY_OAUTH_ROPC_WITHOUT_CLIENT) return refuse("invalid_client");
  const scopes = effectiveScopes(req.scope, app ? app.scopes : [...SERVER_SCOPES]);
  if (!scopes) return refuse("invalid_scope");
  if (!req.username || !req.password) return refuse("invalid_grant");
  const result = await verifyAnyPassword(deps, req.username, req.password);
  if (!result.user || result.refusal !== oauth.SignInRefusal.SIGN_IN_REFUSAL_UNSPECIFIED)
    return refuse("invalid_grant");
  if (result.user.twoFactorEnabled) return refuse("invalid_grant");
  const user = result.user;
  if (!grantableTo(scopes, user.admin)) return refuse("invalid_scope");
  return withTransaction(deps.pool, async (tx) => {
    const issued = await issueTokens(deps, tx, {
      applicationId: app?.id ?? null,
      clientId: app?.uid ?? null,
      userId: user.id,
      scopes,
      nonce: req.nonce || null,
      authTime: new Date(),
      withRefresh: true,
    });
    return issued.reply;
  });
}
