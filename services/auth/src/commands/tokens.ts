import {
  badParameter,
  badRequest,
  invalid,
  notFound,
  recordEvent,
  requireAdmin,
  requireSignedIn,
  withTransaction,
} from "@canopy/kit";
import { AUTH_EVENTS, common } from "@canopy/protos";
import { ADMIN_SCOPES, isPatScope } from "../domain/scopes";
import { generatePersonalAccessToken, tokenDigest } from "../domain/tokens";
import type { Deps } from "../deps";
import * as tokens from "../store/tokens";
import { findUserById } from "../store/users";

const MAX_LIFETIME_DAYS = 365;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export const isoDate = (d: Date) => d.toISOString().slice(0, 10);
const daysFromNow = (days: number) => isoDate(new Date(Date.now() + days * 86_400_000));

/** YYYY-MM-DD naming a real day. Date.parse rolls 2027-02-30 over to March; PostgreSQL refuses it. */
export function isCalendarDate(s: string): boolean {
  const time = Date.parse(`${s}T00:00:00Z`);
  return DATE.test(s) && !Number.isNaN(time) && isoDate(new Date(time)) === s;
}

/** GitLab requires an expiry: omitted means the longest allowed, a date in the past is refused. */
function expiryOf(expiresAt: string): string {
  if (!expiresAt) return daysFromNow(MAX_LIFETIME_DAYS);
  if (!isCalendarDate(expiresAt)) throw badParameter("expires_at is invalid");
  if (expiresAt <= isoDate(new Date())) throw invalid({ expires_at: ["must be in the future"] });
  if (expiresAt > daysFromNow(MAX_LIFETIME_DAYS)) {
    throw invalid({ expires_at: [`must expire within ${MAX_LIFETIME_DAYS} days`] });
  }
  return expiresAt;
}

export interface NewToken {
  userId: number;
  name: string;
  description: string;
  scopes: string[];
  expiresAt: string;
}

export async function createToken(deps: Deps, actor: common.Actor | undefined, t: NewToken) {
  requireAdmin(actor);
  const user = await findUserById(deps.pool, t.userId);
  if (!user) throw notFound("User");
  if (!t.name.trim()) throw badParameter("name is missing");
  if (!t.scopes.length) throw badParameter("scopes is missing");
  if (!t.scopes.every(isPatScope)) throw badParameter("scopes does not have a valid value");
  if (!user.admin && t.scopes.some((s) => ADMIN_SCOPES.has(s))) {
    throw invalid({ scopes: ["can only contain available scopes"] });
  }
  if (t.name.length > 255) throw invalid({ name: ["is too long (maximum is 255 characters)"] });
  if (t.description.length > 255) throw invalid({ description: ["is too long (maximum is 255 characters)"] });
  return issueToken(deps, { ...t, expiresAt: expiryOf(t.expiresAt) });
}

/**
 * Makes a validated token: a fresh secret, stored only as its digest and returned this once. The
 * one way tokens are made, personal access or impersonation.
 */
export async function issueToken(deps: Deps, t: NewToken & { impersonation?: boolean }) {
  const secret = generatePersonalAccessToken();
  const row = await tokens.insertToken(deps.pool, {
    ...t,
    scopes: [...new Set(t.scopes)],
    digest: tokenDigest(deps.tokenKey, secret),
  });
  return { token: tokens.toToken(row), secret };
}

export async function revokeToken(deps: Deps, actor: common.Actor | undefined, { id }: { id: number }) {
  const caller = requireSignedIn(actor);
  const token = await tokens.findTokenById(deps.pool, id);
  if (!token) throw notFound();
  // An impersonation token is not its owner's to revoke (GitLab's PersonalAccessTokenPolicy).
  const mayRevoke = caller.admin || (caller.userId === token.user_id && !token.impersonation);
  if (!mayRevoke) throw badRequest("");
  await revokeStoredToken(deps, actor, token);
}

/**
 * Revokes a token and records the revocation in the same transaction: its event makes every gateway
 * drop its cached answer for the token. Revoking a revoked token changes nothing and says nothing.
 */
export async function revokeStoredToken(
  deps: Deps,
  actor: common.Actor | undefined,
  token: Pick<tokens.TokenRow, "id" | "user_id">,
) {
  await withTransaction(deps.pool, async (tx) => {
    if (!(await tokens.revokeToken(tx, token.id))) return;
    const payload = {
      tokenId: token.id,
      userId: token.user_id,
      kind: common.TokenKind.TOKEN_KIND_PERSONAL_ACCESS,
    };
    await recordEvent(tx, AUTH_EVENTS.tokenRevoked, payload, actor);
  });
}
