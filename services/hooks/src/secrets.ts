import { createHash, randomBytes } from "node:crypto";
import { derivedKey, ensureInstanceSecret, open, seal, type Pool } from "@canopy/kit";

/**
 * Seals hook secrets at rest (url, token, url_variables, custom_headers, signing secret), as GitLab
 * encrypts them with attr_encrypted: AES-256-GCM under a key derived from CANOPY_SECRET_KEY, or from
 * a key generated once and kept in `instance_secrets` (shared by every replica and restart). Each
 * value is bound to its hook and attribute, so a sealed value copied elsewhere does not open.
 */
export class HookSecrets {
  constructor(private readonly key: Buffer) {}

  static async load(pool: Pool, configured?: string): Promise<HookSecrets> {
    const instanceKey = configured
      ? createHash("sha256").update(configured).digest()
      : await ensureInstanceSecret(pool, "hook_secrets_key", randomBytes(32));
    return new HookSecrets(derivedKey(instanceKey, "hook-secrets"));
  }

  seal(hookId: number, attribute: string, value: string): Buffer {
    return seal(this.key, value, `hook:${hookId}:${attribute}`);
  }

  open(hookId: number, attribute: string, sealed: Buffer): string {
    return open(this.key, sealed, `hook:${hookId}:${attribute}`);
  }
}
