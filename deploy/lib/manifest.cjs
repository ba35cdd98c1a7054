// services.json, the one list of Canopy's processes, as the launcher reads it. JSON rather than a
// module so that every consumer can read it: this launcher, the CommonJS jest.config.js, the
// TypeScript e2e and bench stacks, the Dockerfile's build step, the Helm values check and Tilt.
// CommonJS, so that jest.config.js and the tests can require it as the launcher imports it.
const { readFileSync } = require("node:fs");
const path = require("node:path");

const ROOT = path.resolve(__dirname, "..", "..");

/** { libraries, tools, services } from services.json; services are in start order. */
function readManifest(file = path.join(ROOT, "services.json")) {
  return JSON.parse(readFileSync(file, "utf8"));
}

/**
 * What a client dials to reach every replica: one replica is a plain host:port; several are one
 * grpc-js `ipv4:` target listing them all, which the kit's client balances round-robin.
 */
function grpcTarget(ports, host = "127.0.0.1") {
  if (ports.length === 1) return `${host}:${ports[0]}`;
  return `ipv4:${ports.map((port) => `${host}:${port}`).join(",")}`;
}

/**
 * How a service's process is run: `node`, the service's own `nodeArgs` from the manifest (V8 settings
 * that must be given before the process starts), then its entry. The launcher, the Helm values and
 * the Dockerfile all run this.
 */
function commandOf(service) {
  return ["node", ...(service.nodeArgs ?? []), service.entry];
}

module.exports = { ROOT, readManifest, grpcTarget, commandOf };
