import { randomBytes } from "node:crypto";

/** GitLab's formats: 64 lowercase hex for client ids, codes and tokens; `gloas-` + 64 hex for secrets. */
export const randomHex = () => randomBytes(32).toString("hex");
export const generateClientSecret = () => `gloas-${randomHex()}`;
export const OAUTH_TOKEN = /^[0-9a-f]{64}$/;
