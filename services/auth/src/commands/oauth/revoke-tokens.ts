import { recordEvent, type Queryable } from "@canopy/kit";
import { AUTH_EVENTS, common } from "@canopy/protos";
import { revokeWhere } from "../../store/oauth-tokens";

/** Revokes OAuth tokens and records one TokenRevoked event each, so every gateway forgets them. */
export async function revokeAndAnnounce(tx: Queryable, clause: string, params: unknown[]): Promise<number> {
  return announceRevoked(tx, await revokeWhere(tx, clause, params));
}

export async function announceRevoked(tx: Queryable, revoked: { id: number; user_id: number | null }[]) {
  for (const t of revoked) {
    const payload = { tokenId: t.id, userId: t.user_id ?? 0, kind: common.TokenKind.TOKEN_KIND_OAUTH };
    await recordEvent(tx, AUTH_EVENTS.tokenRevoked, payload);
  }
  return revoked.length;
}
