import { z } from "zod";
import { baseConfigSchema, ldapServersSetting, loadConfig, planConfig } from "@canopy/kit";

export const gatewayConfigSchema = baseConfigSchema.extend({
  CANOPY_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  /** Public base URL: Link headers and web_url are built from it. */
  CANOPY_EXTERNAL_URL: z.string().url().default("http://localhost:8080"),
  CANOPY_AUTH_ADDRESS: z.string().default("127.0.0.1:50051"),
  CANOPY_GROUPS_ADDRESS: z.string().default("127.0.0.1:50052"),
  CANOPY_PROJECTS_ADDRESS: z.string().default("127.0.0.1:50053"),
  CANOPY_LDAP_ADDRESS: z.string().default("127.0.0.1:50056"),
  CANOPY_HOOKS_ADDRESS: z.string().default("127.0.0.1:50054"),
  /**
   * The LDAP servers the services share (the kit's parser): the gateway only asks whether any is
   * configured, to leave the ldap service out of group details when none is.
   */
  CANOPY_LDAP_SERVERS: ldapServersSetting,
  /** The tier decides which fields answers carry (GitLab leaves out what a tier does not have). */
  ...planConfig,
  /** Requests per minute per user (authenticated API) and per IP (unauthenticated). */
  CANOPY_RATE_LIMIT_AUTHENTICATED: z.coerce.number().int().min(1).default(2000),
  CANOPY_RATE_LIMIT_UNAUTHENTICATED: z.coerce.number().int().min(1).default(500),
  /** Requests per minute to /oauth/token, /oauth/revoke and /oauth/introspect, per client and per IP. */
  CANOPY_RATE_LIMIT_OAUTH: z.coerce.number().int().min(1).default(300),
  /** Sign-in attempts per minute per IP (GitLab's protected paths: 10). */
  CANOPY_RATE_LIMIT_SIGN_IN: z.coerce.number().int().min(1).default(10),
  /** Prefix of every Redis key the gateway writes; deployments sharing one Redis need different ones. */
  CANOPY_REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,64}$/)
    .default("canopy:"),
  /** How long a web session lasts without use. */
  CANOPY_SESSION_HOURS: z.coerce.number().int().min(1).max(8760).default(168),
  /** How long an authentication answer may be reused without asking the auth service (events drop it sooner). */
  CANOPY_AUTH_CACHE_SECONDS: z.coerce.number().int().min(0).max(3600).default(60),
  /** How long a rendered group read may be reused (writes and events drop it sooner); 0 turns the cache off. */
  CANOPY_ANSWER_CACHE_SECONDS: z.coerce.number().int().min(0).max(3600).default(60),
  /**
   * How long the gateway remembers where a caller's writes reached the event stream, so that its
   * next calls read them back in services that copy them (http/recent-writes.ts); 0 turns it off.
   */
  CANOPY_READ_YOUR_WRITES_SECONDS: z.coerce.number().int().min(0).max(3600).default(15),
  /** Largest request body accepted, in bytes. */
  CANOPY_MAX_BODY_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
  /**
   * Test stacks only: check every /api/v4 answer against the OpenAPI document and append the
   * outcome to this file, one JSON line per answer (openapi/check-responses.ts).
   */
  CANOPY_OPENAPI_CHECK_FILE: z.string().optional(),
  /** Trust X-Forwarded-For from a reverse proxy (only behind one). */
  CANOPY_TRUST_PROXY: z
    .enum(["true", "false"])
    .default("false")
    .transform((v) => v === "true"),
});

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

export const loadGatewayConfig = (env = process.env) => loadConfig(gatewayConfigSchema, env);
