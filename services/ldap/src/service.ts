import path from "node:path";
import { ApplicationSettingsView, defineService, openSettingsBucket, serve } from "@canopy/kit";
import { ldap } from "@canopy/protos";
import { loadLdapConfig } from "./config";
import type { Deps } from "./deps";
import { openLdapDirectory } from "./directory/ldap-directory";
import { groupsConsumer } from "./events/groups";
import { syncAnswersConsumer } from "./events/sync-answers";
import { usersConsumer } from "./events/users";
import { ldapService } from "./rpc/ldap-service";
import { SyncWorkers, syncTimers } from "./sync/worker";

/** The ldap service's parts; the kit's `runService` starts and stops them in order. */
export const ldapServiceDefinition = defineService({
  name: "ldap",
  migrations: path.join(__dirname, "..", "migrations"),
  loadConfig: loadLdapConfig,
  grpcPort: (config) => config.CANOPY_LDAP_GRPC_PORT,
  deps: async ({ pool, log, config, nc }): Promise<Deps> => {
    const workers = new SyncWorkers(() => deps);
    const deps: Deps = {
      pool,
      log,
      config,
      settings: await ApplicationSettingsView.open(
        await openSettingsBucket(nc, config.CANOPY_SETTINGS_BUCKET),
        log,
      ),
      servers: config.CANOPY_LDAP_SERVERS,
      openDirectory: () => openLdapDirectory(log),
      kickSync: () => workers.kick(),
    };
    workersOf.set(deps, workers);
    return deps;
  },
  grpc: (deps) => [serve(ldap.LdapServiceService, ldapService(deps))],
  consumers: (deps) => [usersConsumer(deps), groupsConsumer(deps), syncAnswersConsumer(deps)],
  timers: (deps) => syncTimers(deps, workersOf.get(deps)!),
  // Syncs in flight finish (their command recorded or their failure marked) before the pool closes.
  stop: (deps) => workersOf.get(deps)!.stop(),
});

const workersOf = new WeakMap<Deps, SyncWorkers>();
