import type { ApplicationSettingsMirror, Logger, Pool } from "@canopy/kit";
import type { AuthConfig } from "./config";

/** What commands and finders need; built by service.ts when the service starts. */
export interface Deps {
  pool: Pool;
  log: Logger;
  /** Key for token digests (see secrets.ts). */
  tokenKey: Buffer;
  config: AuthConfig;
  /** Writes each new settings snapshot to the KV bucket other services read. */
  settingsMirror: ApplicationSettingsMirror;
}
