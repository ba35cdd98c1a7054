import type { ApplicationSettingsView, Logger, PlanFeatures, Pool } from "@canopy/kit";
import type { HooksConfig } from "./config";
import type { HookSecrets } from "./secrets";

/** What commands, finders, consumers and workers need; built by service.ts when the service starts. */
export interface Deps {
  pool: Pool;
  log: Logger;
  config: HooksConfig;
  plan: PlanFeatures;
  /** SSRF settings (allow_local_requests_from_web_hooks_and_services, ...) as auth last published them. */
  settings: ApplicationSettingsView;
  secrets: HookSecrets;
}
