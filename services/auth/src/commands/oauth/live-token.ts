import { tokenDigests } from "../../domain/tokens";
import type { Deps } from "../../deps";
import { findByAccessDigest, moveAccessDigest, type OAuthTokenWithOwner } from "../../store/oauth-tokens";
import { remainingSeconds } from "./issue";
import { OAUTH_TOKEN } from "./secrets";

export type Lookup =
  | { token: OAuthTokenWithOwner; live: true }
  | { token?: OAuthTokenWithOwner; live: false; why: "unknown" | "expired" | "revoked" };

/** An OAuth access token and whether it may still be used (expired is checked before revoked, as GitLab). */
export async function lookupAccessToken(deps: Deps, token: string): Promise<Lookup> {
  if (!OAUTH_TOKEN.test(token)) return { live: false, why: "unknown" };
  const digests = tokenDigests(deps, token);
  const row = await findByAccessDigest(deps.pool, digests);
  if (!row) return { live: false, why: "unknown" };
  if (row.token_digest !== digests[0])
    await moveAccessDigest(deps.pool, row.id, digests[0]!).catch((err) =>
      deps.log.warn({ err, token_id: row.id }, "could not move a token's digest to the current key"),
    );
  if (remainingSeconds(row) === 0) return { token: row, live: false, why: "expired" };
  if (row.revoked_at) return { token: row, live: false, why: "revoked" };
  return { token: row, live: true };
}
