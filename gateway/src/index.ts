export { startGateway } from "./server";
export { createApp } from "./app";
export { gatewayConfigSchema, loadGatewayConfig, type GatewayConfig } from "./config";
