import path from "node:path";
import { defineService, serve } from "@canopy/kit";
import { auth, oauth } from "@canopy/protos";
import { bootstrap } from "./bootstrap";
import { rotateSigningKeys } from "./commands/oauth/keys";
import { loadAuthConfig } from "./config";
import type { Deps } from "./deps";
import { authService } from "./rpc/auth-service";
import { oauthService } from "./rpc/oauth-service";
import { tokenHashKey } from "./secrets";

/** The auth service's parts; the kit's `runService` starts and stops them in order. */
export const authServiceDefinition = defineService({
  name: "auth",
  migrations: path.join(__dirname, "..", "migrations"),
  loadConfig: loadAuthConfig,
  grpcPort: (config) => config.CANOPY_AUTH_GRPC_PORT,
  deps: async ({ pool, log, config }): Promise<Deps> => ({
    pool,
    log,
    config,
    tokenKey: await tokenHashKey(pool, config.CANOPY_SECRET_KEY),
  }),
  prepare: (deps) =>
    bootstrap(deps, {
      rootPassword: deps.config.CANOPY_ROOT_PASSWORD,
      rootToken: deps.config.CANOPY_ROOT_TOKEN,
    }),
  grpc: (deps) => [
    serve(auth.AuthServiceService, authService(deps)),
    serve(oauth.OAuthServiceService, oauthService(deps)),
  ],
  timers: (deps) => [
    // Checked often, acted on only when the current key has reached its rotation age.
    {
      name: "signing key rotation",
      everyMs: 6 * 3600_000,
      atStart: true,
      run: () => rotateSigningKeys(deps),
    },
  ],
});
