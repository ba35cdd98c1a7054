import path from "node:path";
import { ApplicationSettingsView, defineService, openSettingsBucket, planFeatures, serve } from "@canopy/kit";
import { hooks } from "@canopy/protos";
import { loadHooksConfig } from "./config";
import type { Deps } from "./deps";
import { hookEventsConsumer } from "./events/hook-events";
import { groupHooksService } from "./rpc/hooks-service";
import { HookSecrets, resealHooks } from "./secrets";
import { deliveryWorkers, pruneTimer } from "./worker/delivery-worker";

/** The hooks service's parts; the kit's `runService` starts and stops them in order. */
export const hooksServiceDefinition = defineService({
  name: "hooks",
  migrations: path.join(__dirname, "..", "migrations"),
  loadConfig: loadHooksConfig,
  grpcPort: (config) => config.CANOPY_HOOKS_GRPC_PORT,
  deps: async ({ pool, log, config, nc }): Promise<Deps> => ({
    pool,
    log,
    config,
    plan: planFeatures(config.CANOPY_PLAN),
    settings: await ApplicationSettingsView.open(
      await openSettingsBucket(nc, config.CANOPY_SETTINGS_BUCKET),
      log,
    ),
    secrets: await HookSecrets.load(pool, config),
  }),
  grpc: (deps) => [serve(hooks.GroupHooksServiceService, groupHooksService(deps))],
  consumers: (deps) => [hookEventsConsumer(deps)],
  timers: (deps) => [pruneTimer(deps)],
  background: (deps) => [...deliveryWorkers(deps), ...resealHooks(deps)],
});
