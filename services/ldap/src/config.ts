import { z } from "zod";
import {
  baseConfigSchema,
  ldapServersSetting,
  loadConfig,
  planConfig,
  settingsBucketConfig,
} from "@canopy/kit";

export const ldapConfigSchema = baseConfigSchema.extend({
  CANOPY_LDAP_GRPC_PORT: z.coerce.number().int().min(0).max(65535).default(50056),
  ...planConfig,
  ...settingsBucketConfig,
  /**
   * GitLab's LDAP servers as one JSON object keyed by server id (`{"main": {...}}` is provider
   * `ldapmain`); unset or empty: no LDAP (the endpoints answer as GitLab's do without it). Parsed
   * by the kit at start: an invalid configuration stops the service with every problem listed.
   */
  CANOPY_LDAP_SERVERS: ldapServersSetting,
  /** How often every linked group is synced (GitLab's hourly cron); 0 never. */
  CANOPY_LDAP_SYNC_INTERVAL_SECONDS: z.coerce.number().int().min(0).default(3600),
  /** How often a replica looks for pending syncs besides being woken by a request (safety net). */
  CANOPY_LDAP_SYNC_POLL_MS: z.coerce.number().int().min(50).max(2_147_483_647).default(5_000),
  /** Syncs one replica runs at once (each against the directory, then one command to groups). */
  CANOPY_LDAP_SYNC_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(2),
  /** A sync `started` longer than this is failed with GitLab's "took too long" (GitLab: 1 hour). */
  CANOPY_LDAP_SYNC_STALE_SECONDS: z.coerce.number().int().min(1).default(3600),
});

export type LdapServiceConfig = z.infer<typeof ldapConfigSchema>;

export const loadLdapConfig = (env = process.env) => loadConfig(ldapConfigSchema, env);
