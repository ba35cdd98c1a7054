#!/usr/bin/env node
import { createLogger, Lifecycle, startHealthServer, startTelemetry } from "@canopy/kit";
import { loadAuthConfig } from "./config";
import { startAuthService } from "./server";

async function main() {
  const config = loadAuthConfig();
  const log = createLogger("auth", config.CANOPY_LOG_LEVEL);
  const lifecycle = new Lifecycle(log);
  lifecycle.onStop("telemetry", await startTelemetry("auth"));
  const service = await startAuthService(config, log);
  const health = await startHealthServer({
    port: config.CANOPY_HEALTH_PORT,
    host: config.CANOPY_HEALTH_HOST,
    checks: [
      { name: "postgres", check: () => service.pool.query("SELECT 1") },
      { name: "nats", check: () => service.nc.flush() },
    ],
  });
  // Run in reverse: readiness says no first, then the service drains, then the side port closes.
  lifecycle.onStop("health", health.close);
  lifecycle.onStop("service", service.stop);
  lifecycle.onStop("readiness", health.markStopping);
  lifecycle.installSignalHandlers();
  log.info({ health_port: health.port }, "auth ready");
}

main().catch((err) => {
  // Configuration errors are for people: print the list, not a stack.
  process.stderr.write(`${err?.name === "ConfigError" ? err.message : (err?.stack ?? err)}\n`);
  process.exit(1);
});
