// The proxy that fronts replicated gateways: each new connection goes to the next upstream.
import net from "node:net";
import { startRoundRobinProxy } from "../lib/round-robin-proxy.cjs";

/** A TCP server on a free loopback port that greets every connection with its name. */
async function greeter(name: string): Promise<net.Server> {
  const server = net.createServer((socket) => socket.end(name));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

const portOf = (server: net.Server) => (server.address() as net.AddressInfo).port;

function greeting(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let text = "";
    socket.on("data", (chunk) => (text += chunk));
    socket.on("end", () => resolve(text));
    socket.on("error", reject);
  });
}

describe("round-robin proxy", () => {
  const servers: net.Server[] = [];
  let proxy: Awaited<ReturnType<typeof startRoundRobinProxy>>;

  beforeAll(async () => {
    servers.push(await greeter("one"), await greeter("two"));
    proxy = await startRoundRobinProxy({ port: 0, upstreams: servers.map(portOf) });
  });
  afterAll(async () => {
    proxy.destroy();
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  });

  it("hands connections to the upstreams in turn", async () => {
    const answers: string[] = [];
    for (let i = 0; i < 4; i++) answers.push(await greeting(proxy.port));
    expect(answers).toEqual(["one", "two", "one", "two"]);
  });

  it("skips an upstream that refuses the connection", async () => {
    const dead = await greeter("gone");
    const deadPort = portOf(dead);
    await new Promise((resolve) => dead.close(resolve));
    const alive = await greeter("alive");
    const mixed = await startRoundRobinProxy({ port: 0, upstreams: [deadPort, portOf(alive)] });
    try {
      const answers: string[] = [];
      for (let i = 0; i < 3; i++) answers.push(await greeting(mixed.port));
      expect(answers).toEqual(["alive", "alive", "alive"]);
    } finally {
      mixed.destroy();
      await new Promise((resolve) => alive.close(resolve));
    }
  });

  it("closes the client's connection when every upstream is gone", async () => {
    const dead = await greeter("gone");
    const deadPort = portOf(dead);
    await new Promise((resolve) => dead.close(resolve));
    const lonely = await startRoundRobinProxy({ port: 0, upstreams: [deadPort] });
    try {
      await expect(greeting(lonely.port)).resolves.toBe("");
    } finally {
      lonely.destroy();
    }
  });
});
