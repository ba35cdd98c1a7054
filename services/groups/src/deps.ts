import type { ApplicationSettingsView, Logger, Pool, SealingKeys } from "@canopy/kit";
import type { GroupsConfig } from "./config";

/** What commands and finders need; built by service.ts when the service starts. */
export interface Deps {
  pool: Pool;
  log: Logger;
  config: GroupsConfig;
  /** Instance settings (default visibility, deletion period, ...) as auth last published them. */
  settings: ApplicationSettingsView;
  /** Seals and opens runners tokens (AES-256-GCM); never logged. */
  runnersTokenKeys: SealingKeys;
}
