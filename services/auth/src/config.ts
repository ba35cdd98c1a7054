import { z } from "zod";
import {
  baseConfigSchema,
  instanceKeyConfig,
  ldapServersSetting,
  loadConfig,
  settingsBucketConfig,
} from "@canopy/kit";

const flag = (fallback: boolean) =>
  z
    .enum(["true", "false"])
    .default(fallback ? "true" : "false")
    .transform((v) => v === "true");
const seconds = (fallback: number, max = 31_536_000) =>
  z.coerce.number().int().min(0).max(max).default(fallback);

/**
 * OAuth switches. Defaults are safer than GitLab; each can be set back to GitLab's behaviour
 * (the value in brackets).
 */
const oauthSettings = {
  /** Public clients must use PKCE with S256 [false]. */
  CANOPY_OAUTH_REQUIRE_PKCE: flag(true),
  /** A replayed authorization code revokes every token issued from it [false]. */
  CANOPY_OAUTH_REVOKE_ON_CODE_REPLAY: flag(true),
  /** Reusing a rotated refresh token revokes its family [false]. */
  CANOPY_OAUTH_REFRESH_REUSE_DETECTION: flag(true),
  /** Within this many seconds a repeated refresh gets the same new pair. */
  CANOPY_OAUTH_REFRESH_GRACE_SECONDS: seconds(30, 3600),
  /** Refresh tokens expire after this many days without use; 0 never [0]. */
  CANOPY_OAUTH_REFRESH_TOKEN_DAYS: z.coerce.number().int().min(0).max(3650).default(30),
  CANOPY_OAUTH_ACCESS_TOKEN_SECONDS: seconds(7200),
  CANOPY_OAUTH_CODE_SECONDS: seconds(600, 3600),
  CANOPY_OAUTH_ID_TOKEN_SECONDS: seconds(120, 86_400),
  /** The resource owner password grant and the implicit grant (the spec lists both). */
  CANOPY_OAUTH_PASSWORD_GRANT: flag(true),
  CANOPY_OAUTH_IMPLICIT_GRANT: flag(true),
  /** Password grant and revocation without client credentials (GitLab's ropc_without_client_credentials) [true]. */
  CANOPY_OAUTH_ROPC_WITHOUT_CLIENT: flag(true),
  /** Days before a new ID-token signing key replaces the current one. */
  CANOPY_OIDC_KEY_ROTATION_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
  /** Failed sign-ins (web and password grant) before the account locks, and for how long. */
  CANOPY_SIGN_IN_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(1000).default(10),
  CANOPY_SIGN_IN_LOCK_MINUTES: z.coerce.number().int().min(1).max(10_080).default(10),
};

export const authConfigSchema = baseConfigSchema.extend({
  CANOPY_AUTH_GRPC_PORT: z.coerce.number().int().min(0).max(65535).default(50051),
  /** GitLab's `impersonation_enabled`: impersonation tokens act as their user; off, they are refused [true]. */
  CANOPY_IMPERSONATION_ENABLED: flag(true),
  /** Password of the bootstrap admin `root`; generated and logged once when unset. */
  CANOPY_ROOT_PASSWORD: z.string().min(8).max(128).optional(),
  /** When set, root owns a personal access token with exactly this value (scopes api, sudo). */
  CANOPY_ROOT_TOKEN: z
    .string()
    .regex(
      /^glpat-[A-Za-z0-9_-]{20,249}$/,
      "must be glpat- followed by 20 to 249 letters, digits, '_' or '-'",
    )
    .optional(),
  /** The instance key (and the one being rotated away from). Unset: generated once, kept in the database. */
  ...instanceKeyConfig,
  /** Issuer of ID tokens and base of redirects: the public URL of the gateway. */
  CANOPY_EXTERNAL_URL: z.string().url().default("http://localhost:8080"),
  ...oauthSettings,
  ...settingsBucketConfig,
  /** LDAP servers people may sign in with, in GitLab's terms (see kit/src/ldap/config.ts); none by default. */
  CANOPY_LDAP_SERVERS: ldapServersSetting,
  /**
   * How often each replica checks LDAP users against their directory (GitLab's LdapSyncWorker and
   * `ldap_sync_time`), taking those not checked within this many seconds; 0 never. At most 24 days:
   * a longer timer would overflow Node's and fire at once, again and again.
   */
  CANOPY_LDAP_USER_CHECK_INTERVAL_SECONDS: seconds(3600, 24 * 86_400),
});

export type AuthConfig = z.infer<typeof authConfigSchema>;

export const loadAuthConfig = (env = process.env) => loadConfig(authConfigSchema, env);
