import path from "node:path";
import { ApplicationSettingsMirror, defineService, openSettingsBucket, serve } from "@canopy/kit";
import {
  auth,
  impersonationTokens,
  oauth,
  settings,
  userActivity,
  userAvatars,
  userCustomAttributes,
  userState,
  userStatus,
} from "@canopy/protos";
import { bootstrap } from "./bootstrap";
import { ldapUserCheckTimers } from "./commands/ldap-user-check";
import { mirrorSettings } from "./commands/mirror-settings";
import { rotateSigningKeys } from "./commands/oauth/keys";
import { backfillUserSnapshots } from "./commands/user-snapshot-backfill";
import { loadAuthConfig } from "./config";
import type { Deps } from "./deps";
import { authService } from "./rpc/auth-service";
import { userAvatarsService } from "./rpc/avatars-service";
import { userCustomAttributesService } from "./rpc/custom-attributes-service";
import { setAvatarExternalUrl } from "./domain/avatar-url";
import { impersonationTokensService } from "./rpc/impersonation-tokens-service";
import { userActivityService } from "./rpc/user-activity-service";
import { userStatusService } from "./rpc/user-status-service";
import { oauthService } from "./rpc/oauth-service";
import { settingsService } from "./rpc/settings-service";
import { userStateService } from "./rpc/user-state-service";
import { resealTotpSecrets, tokenKeys } from "./secrets";

/** The auth service's parts; the kit's `runService` starts and stops them in order. */
export const authServiceDefinition = defineService({
  name: "auth",
  migrations: path.join(__dirname, "..", "migrations"),
  loadConfig: loadAuthConfig,
  grpcPort: (config) => config.CANOPY_AUTH_GRPC_PORT,
  deps: async ({ pool, log, config, nc }): Promise<Deps> => {
    // User events carry absolute avatar URLs, built on the external URL.
    setAvatarExternalUrl(config.CANOPY_EXTERNAL_URL);
    return {
      pool,
      log,
      config,
      ...(await tokenKeys(pool, config)),
      settingsMirror: new ApplicationSettingsMirror(
        await openSettingsBucket(nc, config.CANOPY_SETTINGS_BUCKET),
      ),
    };
  },
  prepare: async (deps) => {
    // Before bootstrap: on a fresh database it finds no users and is done; root's UserCreated follows.
    await backfillUserSnapshots(deps);
    await bootstrap(deps, {
      rootPassword: deps.config.CANOPY_ROOT_PASSWORD,
      rootToken: deps.config.CANOPY_ROOT_TOKEN,
    });
    // Other services read settings from the bucket: it holds them before anything is served.
    await mirrorSettings(deps);
  },
  grpc: (deps) => [
    serve(auth.AuthServiceService, authService(deps)),
    serve(userCustomAttributes.UserCustomAttributesServiceService, userCustomAttributesService(deps)),
    serve(userAvatars.UserAvatarsServiceService, userAvatarsService(deps)),
    serve(userState.UserStateServiceService, userStateService(deps)),
    serve(impersonationTokens.ImpersonationTokensServiceService, impersonationTokensService(deps)),
    serve(userStatus.UserStatusServiceService, userStatusService(deps)),
    serve(userActivity.UserActivityServiceService, userActivityService(deps)),
    serve(oauth.OAuthServiceService, oauthService(deps)),
    serve(settings.SettingsServiceService, settingsService(deps)),
  ],
  timers: (deps) => [
    // Checked often, acted on only when the current key has reached its rotation age.
    {
      name: "signing key rotation",
      everyMs: 6 * 3600_000,
      atStart: true,
      run: () => rotateSigningKeys(deps),
    },
    // Repairs the bucket after a write lost while NATS was away.
    { name: "settings mirror", everyMs: 60_000, run: () => mirrorSettings(deps) },
    // Blocks and unblocks LDAP users as their directory says (GitLab's ldap_blocked).
    ...ldapUserCheckTimers(deps),
  ],
  background: (deps) => resealTotpSecrets(deps),
});
