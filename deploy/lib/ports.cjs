// A port to hand to a process that binds it a few seconds later (the launcher's services, the e2e
// stack's). Taken from below the kernel's ephemeral range: a port from inside it (what listen(0)
// gives) can be claimed meanwhile as the local end of any outgoing connection, and the service then
// fails to start with EADDRINUSE (seen in e2e runs on a busy machine).
const fs = require("node:fs");
const net = require("node:net");

const LOWEST = 10_000;

/**
 * Ports this process handed out or was told are taken: none is handed out twice. Each is free when
 * chosen but bound only later, so without this two picks of one stack could meet on the same port
 * (seen in CI: the e2e stack's public port was also a service's gRPC port).
 */
const taken = new Set();

/** Marks ports as in use by this stack already (those pinned in its environment). */
function reservePorts(ports) {
  for (const port of ports) taken.add(Number(port));
}

/** The first port of the kernel's ephemeral range (Linux), else the IANA default 49152. */
function ephemeralStart() {
  try {
    const [start] = fs.readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/);
    const port = Number(start);
    return Number.isInteger(port) && port > LOWEST + 1_000 ? port : 49_152;
  } catch {
    return 49_152;
  }
}

/** Resolves with `port` if it can be listened on now, else with undefined. */
function tryListen(port) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(undefined));
    server.listen(port, "127.0.0.1", () => {
      const bound = server.address().port;
      server.close(() => resolve(bound));
    });
  });
}

/**
 * A free port below the ephemeral range, never one handed out or reserved before; one from the
 * kernel if none is found in 100 tries.
 */
async function freePort() {
  const end = ephemeralStart();
  for (let i = 0; i < 100; i++) {
    const candidate = LOWEST + Math.floor(Math.random() * (end - LOWEST));
    if (taken.has(candidate)) continue;
    const port = await tryListen(candidate);
    if (port) {
      taken.add(port);
      return port;
    }
  }
  const port = await tryListen(0);
  taken.add(port);
  return port;
}

module.exports = { freePort, reservePorts };
