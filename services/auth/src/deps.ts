import type { ApplicationSettingsMirror, Logger, Pool, SealingKeys } from "@canopy/kit";
import type { AuthConfig } from "./config";

/** What commands and finders need; built by service.ts when the service starts. */
export interface Deps {
  pool: Pool;
  log: Logger;
  /** Key for token digests (see secrets.ts). */
  tokenKey: Buffer;
  /** During a key rotation, the key digests stored before it may still be under. */
  previousTokenKey: Buffer | null;
  /** Seals TOTP secrets, under the same instance key. */
  totpKeys: SealingKeys;
  config: AuthConfig;
  /** Writes each new settings snapshot to the KV bucket other services read. */
  settingsMirror: ApplicationSettingsMirror;
}
