import { withTransaction } from "@canopy/kit";
import type { oauth } from "@canopy/protos";
import { refuse } from "../../../domain/oauth/errors";
import { effectiveScopes, grantableTo } from "../../../domain/oauth/scopes";
import type { Deps } from "../../../deps";
import { requireClient } from "../client-auth";
import { issueTokens } from "../issue";

/**
 * grant_type=client_credentials: the application itself, with its secret; no user, no refresh token.
 * Only confidential applications (RFC 6749 §4.4): a public one cannot keep its secret. No user means
 * no administrator, so the administrators' scopes are never granted here.
 */
export async function clientCredentialsGrant(
  deps: Deps,
  req: oauth.TokenRequest,
): Promise<oauth.TokenResponse> {
  const app = await requireClient(deps, req.client);
  if (!req.client?.clientSecret) return refuse("invalid_client");
  if (!app.confidential) return refuse("unauthorized_client");
  const scopes = effectiveScopes(req.scope, app.scopes);
  if (!scopes || !grantableTo(scopes, false)) return refuse("invalid_scope");
  return withTransaction(deps.pool, async (tx) => {
    const issued = await issueTokens(deps, tx, {
      applicationId: app.id,
      clientId: app.uid,
      userId: null,
      scopes,
      withRefresh: false,
    });
    return issued.reply;
  });
}
