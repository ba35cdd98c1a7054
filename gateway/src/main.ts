#!/usr/bin/env node
import { createLogger, Lifecycle, startHealthServer, startTelemetry } from "@canopy/kit";
import { loadGatewayConfig } from "./config";
import { startGateway } from "./server";

async function main() {
  const config = loadGatewayConfig();
  const log = createLogger("gateway", config.CANOPY_LOG_LEVEL);
  const lifecycle = new Lifecycle(log);
  lifecycle.onStop("telemetry", await startTelemetry("gateway"));
  const gateway = await startGateway(config, log);
  const health = await startHealthServer({
    port: config.CANOPY_HEALTH_PORT,
    host: config.CANOPY_HEALTH_HOST,
    checks: gateway.checks,
  });
  // Run in reverse: readiness says no first, then HTTP drains, then the side port closes.
  lifecycle.onStop("health", health.close);
  lifecycle.onStop("gateway", gateway.stop);
  lifecycle.onStop("readiness", health.markStopping);
  lifecycle.installSignalHandlers();
  log.info({ health_port: health.port, url: config.CANOPY_EXTERNAL_URL }, "gateway ready");
}

main().catch((err) => {
  process.stderr.write(`${err?.name === "ConfigError" ? err.message : (err?.stack ?? err)}\n`);
  process.exit(1);
});
