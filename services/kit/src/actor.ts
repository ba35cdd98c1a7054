import { common } from "@canopy/protos";
import { forbidden, unauthenticated } from "./errors";

/**
 * Who is calling, as every service checks it: the gateway says who the actor is; the service decides
 * what they may do. Each helper throws the error the API answers with.
 */
/** The actor of a request without credentials, as the gateway passes it (and tests play it). */
export const ANONYMOUS: common.Actor = {
  userId: 0,
  username: "",
  admin: false,
  external: false,
  scopes: [],
  tokenKind: common.TokenKind.TOKEN_KIND_UNSPECIFIED,
  tokenId: 0,
  impersonatorId: 0,
};

export function requireSignedIn(actor: common.Actor | undefined): common.Actor {
  if (!actor || !actor.userId) throw unauthenticated();
  return actor;
}

export function requireAdmin(actor: common.Actor | undefined): common.Actor {
  const signedIn = requireSignedIn(actor);
  if (!signedIn.admin) throw forbidden();
  return signedIn;
}

/** The actor is the user `userId`, or an administrator. */
export const isSelfOrAdmin = (actor: common.Actor | undefined, userId: number) =>
  Boolean(actor?.userId && (actor.admin || actor.userId === userId));
