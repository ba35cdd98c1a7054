import net from "node:net";
import os from "node:os";
import { startHealthServer } from "@canopy/kit";
import { closeAllServers, serveAuth } from "./support/grpc";

// With no host configured, a service's ports must not be reachable from the network.

afterEach(closeAllServers);

/** This machine's first non-loopback IPv4 address, if it has one. */
const externalAddress = Object.values(os.networkInterfaces())
  .flat()
  .find((i) => i && i.family === "IPv4" && !i.internal)?.address;

/** Whether a TCP connection to host:port is accepted. */
const accepts = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect({ host, port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });

const itWithExternalAddress = externalAddress ? it : it.skip;

describe("default bind address", () => {
  it("gRPC: loopback answers", async () => {
    const { server } = await serveAuth({}, {}, undefined, {});
    expect(await accepts("127.0.0.1", server.port)).toBe(true);
  });

  itWithExternalAddress(
    "gRPC: the machine's network address is refused, unless 0.0.0.0 is asked for",
    async () => {
      const { server } = await serveAuth({}, {}, undefined, {});
      expect(await accepts(externalAddress!, server.port)).toBe(false);
      // The control: the probe does see a port bound to every interface.
      const open = await serveAuth({}, {}, undefined, { host: "0.0.0.0" });
      expect(await accepts(externalAddress!, open.server.port)).toBe(true);
    },
  );

  it("health side port: loopback answers", async () => {
    const health = await startHealthServer({ port: 0, checks: [] });
    try {
      expect(await accepts("127.0.0.1", health.port)).toBe(true);
    } finally {
      await health.close();
    }
  });

  itWithExternalAddress("health side port: the machine's network address is refused", async () => {
    const health = await startHealthServer({ port: 0, checks: [] });
    const open = await startHealthServer({ port: 0, checks: [], host: "0.0.0.0" });
    try {
      expect(await accepts(externalAddress!, health.port)).toBe(false);
      expect(await accepts(externalAddress!, open.port)).toBe(true);
    } finally {
      await health.close();
      await open.close();
    }
  });
});
