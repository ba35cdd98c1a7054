import type { ApplicationSettingsView, LdapServer, Logger, Pool } from "@canopy/kit";
import type { LdapServiceConfig } from "./config";
import type { Directory } from "./directory/directory";

/** What commands, finders and the sync need; built by service.ts when the service starts. */
export interface Deps {
  pool: Pool;
  log: Logger;
  config: LdapServiceConfig;
  /** Instance settings (allow_group_owners_to_manage_ldap) as auth last published them. */
  settings: ApplicationSettingsView;
  /** The configured servers in order; empty when LDAP is not configured. */
  servers: LdapServer[];
  /** Opens a directory connection for one sync or search (each closes its own). */
  openDirectory: () => Directory;
  /** Wakes this replica's sync workers (a sync was queued). */
  kickSync: () => void;
}
