import { z } from "zod";
import { baseConfigSchema, loadConfig } from "@canopy/kit";

export const authConfigSchema = baseConfigSchema.extend({
  CANOPY_AUTH_GRPC_PORT: z.coerce.number().int().min(0).max(65535).default(50051),
  /** Password of the bootstrap admin `root`; generated and logged once when unset. */
  CANOPY_ROOT_PASSWORD: z.string().min(8).max(128).optional(),
  /** When set, root owns a personal access token with exactly this value (scopes api, sudo). */
  CANOPY_ROOT_TOKEN: z
    .string()
    .regex(/^glpat-[A-Za-z0-9_-]{20,}$/, "must be glpat- followed by at least 20 letters, digits, '_' or '-'")
    .optional(),
  /** Key for hashing tokens. When unset, one is generated on first start and kept in the database. */
  CANOPY_SECRET_KEY: z.string().min(32).optional(),
});

export type AuthConfig = z.infer<typeof authConfigSchema>;

export const loadAuthConfig = (env = process.env) => loadConfig(authConfigSchema, env);
