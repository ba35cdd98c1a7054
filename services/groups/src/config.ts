import { z } from "zod";
import {
  baseConfigSchema,
  instanceKeyConfig,
  loadConfig,
  planConfig,
  settingsBucketConfig,
} from "@canopy/kit";

export const groupsConfigSchema = baseConfigSchema.extend({
  CANOPY_GROUPS_GRPC_PORT: z.coerce.number().int().min(0).max(65535).default(50052),
  /** The public URL of the gateway: web_url and avatar_url are built from it. */
  CANOPY_EXTERNAL_URL: z.string().url().default("http://localhost:8080"),
  ...planConfig,
  /** The instance key (and the one being rotated away from). Unset: generated once, kept in the database. */
  ...instanceKeyConfig,
  ...settingsBucketConfig,
  /** How often a replica looks for queued group removals (DELETE answers before the removal). */
  CANOPY_GROUPS_REMOVAL_POLL_MS: z.coerce.number().int().min(0).default(1_000),
  /** How often a replica looks for groups marked longer ago than the adjourned period; 0 never. */
  CANOPY_GROUPS_ADJOURNED_DELETION_MS: z.coerce.number().int().min(0).default(600_000),
  /**
   * How often a replica removes expired memberships and shares (GitLab: daily); 0 never. They give
   * no access from their expiry date on either way. At most 2^31-1 (a timer's limit, ~24 days).
   */
  CANOPY_GROUPS_EXPIRED_REMOVAL_MS: z.coerce.number().int().min(0).max(2_147_483_647).default(86_400_000),
});

export type GroupsConfig = z.infer<typeof groupsConfigSchema>;

export const loadGroupsConfig = (env = process.env) => loadConfig(groupsConfigSchema, env);
