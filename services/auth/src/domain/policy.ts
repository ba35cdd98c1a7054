import { forbidden, unauthenticated } from "@canopy/kit";
import type { common } from "@canopy/protos";

/** Who may do what with users and tokens. Throws the error the API answers with. */
export function requireSignedIn(actor: common.Actor | undefined): common.Actor {
  if (!actor || !actor.userId) throw unauthenticated();
  return actor;
}

export function requireAdmin(actor: common.Actor | undefined): common.Actor {
  const a = requireSignedIn(actor);
  if (!a.admin) throw forbidden();
  return a;
}

export const isSelfOrAdmin = (actor: common.Actor | undefined, userId: number) =>
  Boolean(actor?.userId && (actor.admin || actor.userId === userId));
