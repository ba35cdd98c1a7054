// With CANOPY_REPLICAS > 1 several gateways run, yet the user keeps one URL: this TCP proxy takes
// CANOPY_PORT and hands each new connection to the next gateway in turn. Per connection, not per
// request (HTTP keep-alive sticks to one gateway), which is enough to exercise every replica locally;
// in a cluster the Ingress and the Service do this job. An upstream that refuses the connection (a
// gateway that died and is starting again) is skipped for the next one: nothing was sent to it yet,
// as a Service skips a pod that is not ready.
const net = require("node:net");

/** Listens on `port` (every interface, as a single gateway would) and forwards to 127.0.0.1:`upstreams`. */
async function startRoundRobinProxy({ port, upstreams }) {
  let next = 0;
  const open = new Set();
  /** Connects to the next upstream that accepts, trying each once; undefined when none does. */
  const connectUpstream = (tries = upstreams.length) =>
    new Promise((resolve) => {
      const upstream = net.connect(upstreams[next++ % upstreams.length], "127.0.0.1");
      upstream.once("connect", () => {
        upstream.removeAllListeners("error");
        resolve(upstream);
      });
      upstream.once("error", () => resolve(tries > 1 ? connectUpstream(tries - 1) : undefined));
    });
  const server = net.createServer(async (client) => {
    client.pause(); // what the client sends waits for its upstream
    open.add(client);
    client.on("error", () => client.destroy());
    client.on("close", () => open.delete(client));
    const upstream = await connectUpstream();
    if (!upstream || client.destroyed) {
      client.destroy();
      upstream?.destroy();
      return;
    }
    const pair = [client, upstream];
    open.add(upstream);
    for (const socket of pair) {
      // Either side failing or closing ends the connection as a whole.
      socket.on("error", () => pair.forEach((s) => s.destroy()));
      socket.on("close", () => {
        open.delete(socket);
        pair.forEach((s) => s.destroy());
      });
    }
    client.pipe(upstream).pipe(client);
    client.resume();
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, resolve);
  });
  return {
    port: server.address().port,
    /** Stops accepting; connections already open run on until their gateway closes them. */
    stopAccepting: () => server.close(),
    /** Drops whatever is still open (after the gateways have stopped). */
    destroy: () => {
      server.close();
      for (const socket of open) socket.destroy();
    },
  };
}

module.exports = { startRoundRobinProxy };
