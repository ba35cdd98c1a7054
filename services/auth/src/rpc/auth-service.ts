import type { AsyncService } from "@canopy/kit";
import { auth } from "@canopy/protos";
import { authenticate } from "../commands/authenticate";
import { verifySignInCode } from "../commands/sign-in";
import { deleteUserIdentity } from "../commands/identities";
import { createToken, revokeToken } from "../commands/tokens";
import { disableTwoFactor, enableTwoFactor, prepareTwoFactor } from "../commands/two-factor";
import { createUser, deleteUser, updateUser } from "../commands/users";
import type { Deps } from "../deps";
import { getToken, listTokens } from "../finders/tokens";
import { getUser, listUsers } from "../finders/users";

/**
 * gRPC handlers: decode, call a command or finder, encode. Rules live in those, not here. Every
 * command and finder has one shape, `(deps, actor, input) => result`.
 */
export const authService = (deps: Deps): AsyncService<typeof auth.AuthServiceService> => ({
  authenticate: (req) => authenticate(deps, req.token),
  getUser: (req) => getUser(deps, req.actor, req),
  listUsers: (req) => listUsers(deps, req.actor, req),
  createUser: (req) => createUser(deps, req.actor, req.attributes ?? {}, req.avatar),
  updateUser: (req) =>
    updateUser(deps, req.actor, { id: req.id, attributes: req.attributes ?? {}, avatar: req.avatar }),
  deleteUser: async (req) => {
    await deleteUser(deps, req.actor, req);
    return {};
  },
  deleteUserIdentity: (req) => deleteUserIdentity(deps, req.actor, req),
  createPersonalAccessToken: (req) => createToken(deps, req.actor, req),
  listPersonalAccessTokens: (req) => listTokens(deps, req.actor, req),
  getPersonalAccessToken: (req) => getToken(deps, req.actor, req),
  revokePersonalAccessToken: async (req) => {
    await revokeToken(deps, req.actor, req);
    return {};
  },
  prepareTwoFactor: (req) => prepareTwoFactor(deps, req.actor),
  enableTwoFactor: (req) => enableTwoFactor(deps, req.actor, req),
  disableTwoFactor: (req) => disableTwoFactor(deps, req.actor, req),
  verifySignInCode: (req) => verifySignInCode(deps, req),
});
