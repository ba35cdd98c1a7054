import type { AsyncService } from "@canopy/kit";
import { oauth } from "@canopy/protos";
import {
  createApplication,
  deleteApplication,
  listApplications,
  renewApplicationSecret,
} from "../commands/oauth/applications";
import { authorize, preAuthorize } from "../commands/oauth/authorize";
import { introspect } from "../commands/oauth/introspect";
import { publishedKeys } from "../commands/oauth/keys";
import { revoke } from "../commands/oauth/revoke";
import { token } from "../commands/oauth/token";
import { tokenInfo } from "../commands/oauth/token-info";
import { userInfo } from "../commands/oauth/userinfo";
import { provesClient } from "../commands/oauth/client-auth";
import { signInWithLdap } from "../commands/ldap-sign-in";
import { verifyPassword } from "../commands/sign-in";
import type { Deps } from "../deps";

/** Marks an answer to a client-authenticated endpoint with whether the request proved the client. */
async function withClientVerdict<T>(
  deps: Deps,
  client: oauth.ClientCredentials | undefined,
  answer: Promise<T>,
) {
  const [reply, proved] = await Promise.all([answer, provesClient(deps, client)]);
  return proved ? { ...reply, clientAuthenticated: true } : reply;
}

/** gRPC handlers of the OAuth provider: decode, call, encode. */
export const oauthService = (deps: Deps): AsyncService<typeof oauth.OAuthServiceService> => ({
  createApplication: (req) => createApplication(deps, req),
  listApplications: (req) => listApplications(deps, req),
  deleteApplication: (req) => deleteApplication(deps, req),
  renewApplicationSecret: (req) => renewApplicationSecret(deps, req),
  signIn: (req) => {
    // The web sign-in page: a deactivated user comes back, and the sign-in is recorded.
    const web = { reactivate: true, track: { clientIp: req.clientIp } };
    return req.provider
      ? signInWithLdap(deps, req.provider, req.login, req.password, web)
      : verifyPassword(deps, req.login, req.password, web);
  },
  listSignInProviders: async () => ({
    providers: deps.config.CANOPY_LDAP_SERVERS.map(({ provider, label }) => ({ provider, label })),
  }),
  preAuthorize: (req) => preAuthorize(deps, req),
  authorize: (req) => authorize(deps, req),
  token: (req) => withClientVerdict(deps, req.client, token(deps, req)),
  tokenInfo: (req) => tokenInfo(deps, req),
  revoke: (req) => withClientVerdict(deps, req.client, revoke(deps, req)),
  introspect: (req) => withClientVerdict(deps, req.client, introspect(deps, req)),
  userInfo: (req) => userInfo(deps, req),
  getJwks: async () => ({ jwksJson: JSON.stringify({ keys: await publishedKeys(deps) }) }),
});
