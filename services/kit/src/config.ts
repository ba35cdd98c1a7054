import { z } from "zod";
import { eventStreamSetting } from "./events/stream";

/** Settings every Canopy process shares. Each has a working local default. */
export const baseConfigSchema = z.object({
  CANOPY_DATABASE_URL: z.string().url().default("postgres://postgres@127.0.0.1:5432/canopy"),
  CANOPY_REDIS_URL: z.string().url().default("redis://127.0.0.1:6379"),
  CANOPY_NATS_URL: z.string().default("nats://127.0.0.1:4222"),
  /** JetStream stream of this deployment's events; deployments sharing a NATS need different ones. */
  CANOPY_EVENT_STREAM: eventStreamSetting,
  CANOPY_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** Port of the side HTTP server (liveness, readiness, metrics); 0 picks a free one. */
  CANOPY_HEALTH_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  /** Interface the side HTTP server binds; a pod sets 0.0.0.0 so probes and scrapes reach it. */
  CANOPY_HEALTH_HOST: z.string().default("127.0.0.1"),
  /** Interface a service's gRPC server binds; a pod sets 0.0.0.0 (calls are still authenticated). */
  CANOPY_GRPC_HOST: z.string().default("127.0.0.1"),
  /** Local state (the shared call-signing key); default `$XDG_STATE_HOME/canopy` or `~/.local/state/canopy`. */
  CANOPY_STATE_DIR: z.string().optional(),
  /** Gateway only: Ed25519 private key (PEM PKCS#8, or base64 of it) that signs every gRPC call. */
  CANOPY_GATEWAY_SIGNING_KEY: z.string().optional(),
  /** Services: the matching public key (PEM SPKI, or base64 of it); calls it does not verify are refused. */
  CANOPY_GATEWAY_VERIFY_KEY: z.string().optional(),
  /** Mutual TLS for gRPC (all three or none): files of the CA, this process's certificate and its key. */
  CANOPY_GRPC_TLS_CA: z.string().optional(),
  CANOPY_GRPC_TLS_CERT: z.string().optional(),
  CANOPY_GRPC_TLS_KEY: z.string().optional(),
});

export type BaseConfig = z.infer<typeof baseConfigSchema>;

/** The settings of a service that hashes or seals secrets under the instance key (instance-keys.ts). */
export const instanceKeyConfig = {
  CANOPY_SECRET_KEY: z.string().min(32).optional(),
  /** The key being rotated away from: its value, or `generated` for the one kept in the database. */
  CANOPY_SECRET_KEY_PREVIOUS: z.union([z.literal("generated"), z.string().min(32)]).optional(),
};

/** Thrown when the environment does not satisfy a schema; lists every problem at once. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  }
}

/**
 * Reads and validates configuration from environment variables. Empty strings count as unset, so
 * `CANOPY_X=` falls back to the default like a missing variable does.
 */
export function loadConfig<S extends z.ZodObject<z.ZodRawShape>>(
  schema: S,
  env: NodeJS.ProcessEnv = process.env,
): z.infer<S> {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const result = schema.safeParse(present);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const name = issue.path.join(".");
    return present[name] === undefined ? `${name} is missing` : `${name} is invalid: ${issue.message}`;
  });
  throw new ConfigError(problems);
}
