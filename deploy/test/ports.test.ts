import { readFileSync } from "node:fs";
import net from "node:net";
import { freePort } from "../lib/ports.cjs";

const ephemeralStart = Number(
  readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0],
);

it("gives ports below the kernel's ephemeral range, free to listen on", async () => {
  const ports = await Promise.all(Array.from({ length: 20 }, freePort));
  for (const port of ports) {
    expect(port).toBeGreaterThanOrEqual(10_000);
    expect(port).toBeLessThan(ephemeralStart);
  }
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(ports[0], "127.0.0.1", resolve));
  await new Promise((resolve) => server.close(resolve));
});
