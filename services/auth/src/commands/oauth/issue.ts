import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import type { Queryable } from "@canopy/kit";
import type { oauth } from "@canopy/protos";
import { tokenDigest } from "../../domain/tokens";
import type { Deps } from "../../deps";
import { insertOAuthToken, type OAuthTokenRow } from "../../store/oauth-tokens";
import { issueIdToken } from "./id-token";
import { randomHex } from "./secrets";

export interface Issue {
  applicationId: number | null;
  clientId: string | null;
  userId: number | null;
  scopes: string[];
  /** The refresh token's scope, when wider than the access token's (a narrowing refresh). */
  refreshScopes?: string[] | null;
  familyId?: number | null;
  grantId?: number | null;
  nonce?: string | null;
  authTime?: Date | null;
  withRefresh: boolean;
}

/** Creates an access token (and refresh token) and the exact /oauth/token reply for it. */
export async function issueTokens(deps: Deps, tx: Queryable, i: Issue) {
  const accessToken = randomHex();
  const refreshToken = i.withRefresh ? randomHex() : undefined;
  const days = deps.config.CANOPY_OAUTH_REFRESH_TOKEN_DAYS;
  const row = await insertOAuthToken(tx, {
    family_id: i.familyId ?? null,
    application_id: i.applicationId,
    user_id: i.userId,
    grant_id: i.grantId ?? null,
    token_digest: tokenDigest(deps.tokenKey, accessToken),
    refresh_digest: refreshToken ? tokenDigest(deps.tokenKey, refreshToken) : null,
    scopes: i.scopes,
    refresh_scopes: refreshToken ? (i.refreshScopes ?? null) : null,
    expires_in: deps.config.CANOPY_OAUTH_ACCESS_TOKEN_SECONDS,
    refresh_expires_at: refreshToken && days ? new Date(Date.now() + days * 86_400_000) : null,
    nonce: i.nonce ?? null,
    auth_time: i.authTime ?? null,
  });
  const idToken =
    i.userId && i.clientId && i.scopes.includes("openid")
      ? await issueIdToken(deps, {
          userId: i.userId,
          clientId: i.clientId,
          scopes: i.scopes,
          nonce: i.nonce,
          authTime: i.authTime,
        })
      : undefined;
  const reply: oauth.TokenResponse = {
    accessToken,
    tokenType: "Bearer",
    expiresIn: row.expires_in ?? 0,
    refreshToken: refreshToken ?? "",
    scope: i.scopes.join(" "),
    createdAt: Math.floor(row.created_at.getTime() / 1000),
    idToken: idToken ?? "",
  };
  return { row, reply };
}

/**
 * The grace-window reply of a rotated refresh token is kept encrypted with a key derived from that
 * refresh token, which the server does not store: only a holder of the old token can read it back.
 */
const keyOf = (refreshToken: string) =>
  createHash("sha256").update(`canopy-rotation:${refreshToken}`).digest();

export function sealReply(refreshToken: string, reply: oauth.TokenResponse): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keyOf(refreshToken), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(reply), "utf8"), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

export function openReply(refreshToken: string, sealed: Buffer): oauth.TokenResponse | undefined {
  try {
    const decipher = createDecipheriv("aes-256-gcm", keyOf(refreshToken), sealed.subarray(0, 12));
    decipher.setAuthTag(sealed.subarray(12, 28));
    const text = Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]).toString("utf8");
    return JSON.parse(text) as oauth.TokenResponse;
  } catch {
    return undefined;
  }
}

/** Seconds an access token has left; never negative (GitLab's expires_in). */
export const remainingSeconds = (t: Pick<OAuthTokenRow, "created_at" | "expires_in">) =>
  t.expires_in === null
    ? null
    : Math.max(0, Math.floor((t.created_at.getTime() + t.expires_in * 1000 - Date.now()) / 1000));
