import { z } from "zod";
import { baseConfigSchema, loadConfig, planConfig, settingsBucketConfig } from "@canopy/kit";

export const projectsConfigSchema = baseConfigSchema.extend({
  CANOPY_PROJECTS_GRPC_PORT: z.coerce.number().int().min(0).max(65535).default(50053),
  ...planConfig,
  ...settingsBucketConfig,
  /**
   * How long a create in the caller's personal namespace waits for its copy when the gateway had no
   * hint for it (a user created a moment ago: auth's event, then the groups service's, on their way).
   * A namespace_id is never awaited: the gateway's hint fills a missing copy.
   */
  CANOPY_PROJECTS_COPY_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(3_000),
  /** How often a replica looks for projects marked longer ago than the adjourned period; 0 never. */
  CANOPY_PROJECTS_ADJOURNED_DELETION_MS: z.coerce.number().int().min(0).default(600_000),
  /** How often a replica removes expired project memberships and shares (and once after start); 0 never. */
  CANOPY_PROJECTS_EXPIRED_REMOVAL_MS: z.coerce.number().int().min(0).max(2_147_483_647).default(86_400_000),
});

export type ProjectsConfig = z.infer<typeof projectsConfigSchema>;

export const loadProjectsConfig = (env = process.env) => loadConfig(projectsConfigSchema, env);
