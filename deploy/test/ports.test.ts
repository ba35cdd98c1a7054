import { readFileSync } from "node:fs";
import net from "node:net";
import { freePort, reservePorts } from "../lib/ports.cjs";

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

it("never hands out a port twice, nor one reserved, though none of them is bound yet", async () => {
  // 300 picks from ~20,000 ports: without the memory, two would meet nearly always.
  const reserved = Array.from({ length: 300 }, (_, i) => 10_000 + i * 7);
  reservePorts(reserved);
  const ports: number[] = [];
  for (let i = 0; i < 300; i++) ports.push(await freePort());
  expect(new Set(ports).size).toBe(ports.length);
  expect(ports.filter((p) => reserved.includes(p))).toEqual([]);
});
