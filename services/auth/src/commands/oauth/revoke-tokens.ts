import { recordEvent, type Queryable } from "@canopy/kit";
import { AUTH_EVENTS, common } from "@canopy/protos";
import type { RevokedToken } from "../../store/oauth-tokens";

/**
 * Records one TokenRevoked event for each token the store just revoked, so every gateway forgets them
 * (the events are published when the transaction commits).
 */
export async function announceRevoked(tx: Queryable, revoked: RevokedToken[]) {
  for (const t of revoked) {
    const payload = { tokenId: t.id, userId: t.user_id ?? 0, kind: common.TokenKind.TOKEN_KIND_OAUTH };
    await recordEvent(tx, AUTH_EVENTS.tokenRevoked, payload);
  }
  return revoked.length;
}
