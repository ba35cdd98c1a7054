import type { ApplicationSettingsView, Logger, Pool } from "@canopy/kit";
import type { ProjectsConfig } from "./config";

/** What commands and finders need; built by service.ts when the service starts. */
export interface Deps {
  pool: Pool;
  log: Logger;
  config: ProjectsConfig;
  /** Instance settings (default project visibility, deletion period, ...) as auth last published them. */
  settings: ApplicationSettingsView;
}
