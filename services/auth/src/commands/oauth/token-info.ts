import type { oauth } from "@canopy/protos";
import { oauthError } from "../../domain/oauth/errors";
import type { Deps } from "../../deps";
import { remainingSeconds } from "./issue";
import { lookupAccessToken } from "./live-token";

/** GET /oauth/token/info. Every failure is the same invalid_token: the reason is not disclosed. */
export async function tokenInfo(deps: Deps, req: oauth.TokenInfoRequest): Promise<oauth.TokenInfoResponse> {
  const found = await lookupAccessToken(deps, req.token);
  if (!found.live || (found.token.user_id && found.token.user_state !== "active")) {
    return {
      error: oauthError("invalid_token"),
      resourceOwnerId: 0,
      scopes: [],
      expiresIn: 0,
      applicationUid: "",
      createdAt: 0,
    };
  }
  const t = found.token;
  return {
    resourceOwnerId: t.user_id ?? 0,
    scopes: t.scopes,
    expiresIn: remainingSeconds(t) ?? -1,
    applicationUid: t.application_uid ?? "",
    createdAt: Math.floor(t.created_at.getTime() / 1000),
  };
}
