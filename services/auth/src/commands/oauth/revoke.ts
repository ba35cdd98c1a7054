import { withTransaction } from "@canopy/kit";
import type { oauth } from "@canopy/protos";
import { OAuthRefusal, oauthError } from "../../domain/oauth/errors";
import { tokenDigests } from "../../domain/tokens";
import type { Deps } from "../../deps";
import { isApplicationConfidential } from "../../store/oauth-applications";
import { findByAccessDigest, findByRefreshDigest, revokeTokenById } from "../../store/oauth-tokens";
import { authenticateClient } from "./client-auth";
import { announceRevoked } from "./revoke-tokens";

const notYours = (): oauth.RevokeResponse => ({
  error: oauthError("unauthorized_client", "You are not authorized to revoke this token"),
});

/**
 * POST /oauth/revoke (RFC 7009). Unknown tokens answer success. A token issued to an application
 * may be revoked only by that application; without client credentials that is allowed only while
 * CANOPY_OAUTH_ROPC_WITHOUT_CLIENT is on, and then only for tokens of public applications or none.
 */
export async function revoke(deps: Deps, req: oauth.RevokeRequest): Promise<oauth.RevokeResponse> {
  let client;
  try {
    client = await authenticateClient(deps, req.client);
  } catch (err) {
    if (err instanceof OAuthRefusal) return { error: err.error };
    throw err;
  }
  if (!client && !deps.config.CANOPY_OAUTH_ROPC_WITHOUT_CLIENT) return notYours();
  const digests = tokenDigests(deps, req.token);
  const order =
    req.tokenTypeHint === "refresh_token"
      ? [findByRefreshDigest, findByAccessDigest]
      : [findByAccessDigest, findByRefreshDigest];
  const found = (await order[0]!(deps.pool, digests)) ?? (await order[1]!(deps.pool, digests));
  if (!found) return {};
  if (found.application_id !== null) {
    const anonymousAllowed = !client && !(await isConfidential(deps, found.application_id));
    if (client?.id !== found.application_id && !anonymousAllowed) return notYours();
  }
  await withTransaction(deps.pool, async (tx) => announceRevoked(tx, await revokeTokenById(tx, found.id)));
  return {};
}

async function isConfidential(deps: Deps, applicationId: number) {
  // An application that has vanished counts as confidential: anonymous revocation stays refused.
  return (await isApplicationConfidential(deps.pool, applicationId)) ?? true;
}
