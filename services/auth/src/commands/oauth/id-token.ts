import { SignJWT } from "jose";
import type { Deps } from "../../deps";
import { findUserById } from "../../store/users";
import { currentSigningKey } from "./keys";

/**
 * The OpenID Connect ID token GitLab issues (config/initializers/doorkeeper_openid_connect.rb):
 * base claims, then profile claims, and the email per the `email` scope.
 */
export async function issueIdToken(
  deps: Deps,
  t: { userId: number; clientId: string; scopes: string[]; nonce?: string | null; authTime?: Date | null },
): Promise<string | undefined> {
  const user = await findUserById(deps.pool, t.userId);
  if (!user) return undefined;
  const base = deps.config.CANOPY_EXTERNAL_URL.replace(/\/+$/, "");
  const email = t.scopes.includes("email") ? user.email : user.public_email;
  const claims: Record<string, unknown> = {
    nonce: t.nonce || undefined,
    auth_time: Math.floor((t.authTime ?? user.current_sign_in_at ?? new Date()).getTime() / 1000),
    name: user.name,
    nickname: user.username,
    preferred_username: user.username,
    website: user.website_url || undefined,
    profile: `${base}/${user.username}`,
    email: email || undefined,
    email_verified: email ? Boolean(t.scopes.includes("email") ? user.confirmed_at : true) : undefined,
    groups_direct: [],
  };
  const key = await currentSigningKey(deps);
  return new SignJWT(Object.fromEntries(Object.entries(claims).filter(([, v]) => v !== undefined)))
    .setProtectedHeader({ alg: "RS256", typ: "JWT", kid: key.kid })
    .setIssuer(base)
    .setSubject(String(user.id))
    .setAudience(t.clientId)
    .setIssuedAt()
    .setExpirationTime(`${deps.config.CANOPY_OAUTH_ID_TOKEN_SECONDS}s`)
    .sign(key.key);
}

/** The userinfo claims, in GitLab's key order, without empty values. */
export async function userInfoClaims(deps: Deps, userId: number, scopes: string[]) {
  const user = await findUserById(deps.pool, userId);
  if (!user) return undefined;
  const base = deps.config.CANOPY_EXTERNAL_URL.replace(/\/+$/, "");
  const email = scopes.includes("email") ? user.email : user.public_email;
  const claims: Record<string, unknown> = {
    sub: String(user.id),
    name: user.name,
    nickname: user.username,
    preferred_username: user.username,
    email,
    email_verified: email ? Boolean(scopes.includes("email") ? user.confirmed_at : true) : undefined,
    website: user.website_url,
    profile: `${base}/${user.username}`,
    picture: undefined,
    groups: [],
  };
  return Object.fromEntries(Object.entries(claims).filter(([, v]) => v !== undefined && v !== ""));
}
