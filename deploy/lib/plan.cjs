// Which processes the launcher starts and on which ports: every service of the manifest times
// CANOPY_REPLICAS. Kept apart from the launcher (no processes, no logging) so a test can check it.
const { grpcTarget } = require("./manifest.cjs");

const MAX_REPLICAS = 16;

/** CANOPY_REPLICAS: unset or empty is 1. */
function replicaCount(value) {
  if (value === undefined || value === "") return 1;
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1 || count > MAX_REPLICAS) {
    throw new Error(`CANOPY_REPLICAS=${value} is not a whole number from 1 to ${MAX_REPLICAS}`);
  }
  return count;
}

/**
 * One port per replica. `value` (a port variable) may list several, comma-separated, so a caller
 * such as the e2e stack can pin every replica; replicas it does not name get a free port.
 */
async function portsFor(variable, value, count, freePort) {
  const given = (value ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean);
  for (const port of given) {
    const n = Number(port);
    if (!Number.isInteger(n) || n <= 0 || n > 65535) throw new Error(`${variable}=${value} is not a port`);
  }
  const ports = [];
  for (let i = 0; i < count; i++) ports.push(i < given.length ? Number(given[i]) : await freePort());
  return ports;
}

/**
 * The stack to start, from the manifest's services and the launcher's environment:
 * - `env`: variables every process gets (each gRPC service's address variable: all its replicas);
 * - `services`: in start order, each with its replicas (log tag, health port, own variables);
 * - `proxies`: when an HTTP service runs more than once, its public port fronted by a round-robin
 *   TCP proxy over the replicas' own ports, so users still reach one URL.
 */
async function planStack({ services, env, replicas, freePort }) {
  /** @type {Record<string, string>} */
  const shared = {};
  const proxies = [];
  const planned = [];
  for (const service of services) {
    const own = Array.from({ length: replicas }, () => ({}));
    const health = await portsFor(
      service.healthPortVariable,
      env[service.healthPortVariable],
      replicas,
      freePort,
    );
    health.forEach((port, i) => (own[i].CANOPY_HEALTH_PORT = `${port}`));

    if (service.grpc) {
      const { portVariable, defaultPort, addressVariable } = service.grpc;
      const ports = await portsFor(portVariable, env[portVariable] || `${defaultPort}`, replicas, freePort);
      ports.forEach((port, i) => (own[i][portVariable] = `${port}`));
      shared[addressVariable] = env[addressVariable] || grpcTarget(ports);
    }

    if (service.http) {
      const { portVariable, defaultPort } = service.http;
      const [publicPort] = await portsFor(portVariable, env[portVariable] || `${defaultPort}`, 1, freePort);
      const ports = replicas === 1 ? [publicPort] : await portsFor(portVariable, "", replicas, freePort);
      ports.forEach((port, i) => (own[i][portVariable] = `${port}`));
      if (replicas > 1) proxies.push({ name: service.name, port: publicPort, upstreams: ports });
    }

    planned.push({
      ...service,
      replicas: own.map((variables, i) => ({
        tag: replicas === 1 ? service.name : `${service.name}#${i + 1}`,
        healthPort: health[i],
        env: variables,
      })),
    });
  }
  return { env: shared, services: planned, proxies };
}

module.exports = { replicaCount, planStack };
