import { z } from "zod";
import {
  baseConfigSchema,
  instanceKeyConfig,
  loadConfig,
  planConfig,
  settingsBucketConfig,
} from "@canopy/kit";

const seconds = (max: number) => z.coerce.number().min(0).max(max);

export const hooksConfigSchema = baseConfigSchema.extend({
  CANOPY_HOOKS_GRPC_PORT: z.coerce.number().int().min(0).max(65535).default(50054),
  ...planConfig,
  ...settingsBucketConfig,
  /** The instance key (and the one being rotated away from). Unset: generated once, kept in the database. */
  ...instanceKeyConfig,
  /** The instance's base URL, sent as X-Gitlab-Instance. */
  CANOPY_EXTERNAL_URL: z.string().url().default("http://localhost:8080"),
  /** Attempts of one delivery before it counts as failed (1: GitLab's "never retried"). */
  CANOPY_HOOK_RETRY_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(5),
  /** The first retry's delay; each next one doubles (with jitter), or what Retry-After asks. */
  CANOPY_HOOK_RETRY_BASE_SECONDS: seconds(3_600).default(10),
  /**
   * Per-hook ordering: an undelivered delivery holds the hook's later ones back for at most this
   * long after it was created; after that they go out without waiting for it. 0 turns ordering off.
   */
  CANOPY_HOOK_ORDER_HOLD_SECONDS: seconds(86_400).default(300),
  /** GitLab's auto-disabling (ops flag auto_disabling_web_hooks, off on GitLab self-managed). */
  CANOPY_HOOK_AUTO_DISABLE: z
    .enum(["true", "false"])
    .default("true")
    .transform((v) => v === "true"),
  /** Delivery workers in this replica (0: this replica sends nothing). */
  CANOPY_HOOK_WORKERS: z.coerce.number().int().min(0).max(64).default(4),
  /** How often an idle worker looks for due deliveries besides being woken by a NOTIFY. */
  CANOPY_HOOK_POLL_MS: z.coerce.number().int().min(50).max(600_000).default(5_000),
  /** Delivery log rows older than this are pruned (GitLab keeps 14 days, answers 7). */
  CANOPY_HOOK_LOG_RETENTION_DAYS: z.coerce.number().int().min(7).max(365).default(14),
  /** How often a replica prunes old log rows (one replica at a time); 0 never. */
  CANOPY_HOOK_PRUNE_MS: z.coerce.number().int().min(0).max(2_147_483_647).default(3_600_000),
  /** GitLab's webhook_timeout, seconds. */
  CANOPY_HOOK_TIMEOUT_SECONDS: seconds(300).default(10),
});

export type HooksConfig = z.infer<typeof hooksConfigSchema>;

export const loadHooksConfig = (env = process.env) => loadConfig(hooksConfigSchema, env);
