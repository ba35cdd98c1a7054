// Kept-alive connections to receivers (src/delivery/connection-pool.ts): deliveries to one receiver
// share a connection; a kept connection the receiver dropped costs nothing but a new connection;
// and a connection serves only requests the URL guard checked to the address it was made to.
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { sendWebhook, type OutboundRequestSettings, type Resolver } from "../../src/delivery";

const HOST = "kept.example.test";
const settings: OutboundRequestSettings = {
  allowLocalRequestsFromWebHooksAndServices: false,
  outboundLocalRequestsWhitelist: ["127.0.0.1", "127.0.0.2"],
  dnsRebindingProtectionEnabled: true,
  denyAllRequestsExceptAllowed: false,
};

interface Served {
  /** The address each connection was made to (the server's end), in order. */
  connections: string[];
  /** Requests answered, with the connection (index) each came on. */
  answered: { url: string; connection: number }[];
  port: number;
  close(): Promise<void>;
}

/** A receiver on every loopback address; `dropSecond` drops a connection's second request unanswered. */
async function serve(dropSecond = false): Promise<Served> {
  const sockets: Socket[] = [];
  const served: Omit<Served, "port" | "close"> = { connections: [], answered: [] };
  const server = http.createServer((req, res) => {
    const connection = sockets.indexOf(req.socket);
    const before = served.answered.filter((a) => a.connection === connection).length;
    if (dropSecond && before === 1) return req.socket.destroy();
    req.resume();
    req.on("end", () => {
      served.answered.push({ url: req.url ?? "", connection });
      res.end("ok");
    });
  });
  server.on("connection", (socket) => {
    sockets.push(socket);
    served.connections.push(socket.localAddress ?? "");
  });
  await new Promise<void>((resolve) => server.listen(0, "0.0.0.0", resolve));
  return {
    ...served,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const send = (port: number, path: string, resolve: Resolver) =>
  sendWebhook({
    url: `http://${HOST}:${port}${path}`,
    body: "{}",
    headers: { "Content-Type": "application/json" },
    guard: { settings, resolve },
  });

const at =
  (address: string): Resolver =>
  async () => [{ address, family: 4 }];

it("sends a receiver's deliveries over one kept connection", async () => {
  const receiver = await serve();
  try {
    for (const path of ["/1", "/2", "/3"])
      expect(await send(receiver.port, path, at("127.0.0.1"))).toMatchObject({ status: 200 });
    expect(receiver.connections).toEqual(["127.0.0.1"]);
    expect(receiver.answered.map((a) => a.connection)).toEqual([0, 0, 0]);
  } finally {
    await receiver.close();
  }
});

it("sends again on a new connection when the receiver dropped the kept one, with nothing logged as failed", async () => {
  const receiver = await serve(true);
  try {
    expect(await send(receiver.port, "/first", at("127.0.0.1"))).toMatchObject({ status: 200 });
    expect(await send(receiver.port, "/second", at("127.0.0.1"))).toMatchObject({ status: 200 });
    expect(receiver.answered).toEqual([
      { url: "/first", connection: 0 },
      { url: "/second", connection: 1 },
    ]);
  } finally {
    await receiver.close();
  }
});

it("never sends a request on a connection made to other addresses than its own check allowed", async () => {
  const receiver = await serve();
  try {
    expect(await send(receiver.port, "/a", at("127.0.0.1"))).toMatchObject({ status: 200 });
    // The name now resolves elsewhere: the kept connection to 127.0.0.1 is not this request's.
    expect(await send(receiver.port, "/b", at("127.0.0.2"))).toMatchObject({ status: 200 });
    expect(await send(receiver.port, "/c", at("127.0.0.1"))).toMatchObject({ status: 200 });
    expect(receiver.connections).toEqual(["127.0.0.1", "127.0.0.2"]);
    expect(receiver.answered).toEqual([
      { url: "/a", connection: 0 },
      { url: "/b", connection: 1 },
      { url: "/c", connection: 0 },
    ]);
  } finally {
    await receiver.close();
  }
});
