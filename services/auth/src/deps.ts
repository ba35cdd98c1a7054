import type { ApplicationSettingsMirror, Logger, Pool } from "@canopy/kit";
import type { AuthConfig } from "./config";

/** What commands and finders need; built once in main.ts. */
export interface Deps {
  pool: Pool;
  log: Logger;
  /** Key for token digests (see secrets.ts). */
  tokenKey: Buffer;
  /** Publishes recorded events now and resolves when they are on the stream. */
  publishEvents: () => Promise<void>;
  config: AuthConfig;
  /** Writes each new settings snapshot to the KV bucket other services read. */
  settingsMirror: ApplicationSettingsMirror;
}
