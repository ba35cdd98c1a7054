import { connectRedis, Lifecycle, startTelemetry } from "@canopy/kit";
import { recordingLogger } from "@canopy/kit/testing";
import { quietLog, REDIS_URL, unique } from "./support/infra";

describe("Lifecycle", () => {
  it("runs stop steps in reverse order of registration", async () => {
    const order: string[] = [];
    const lifecycle = new Lifecycle(quietLog);
    lifecycle.onStop("pool", () => void order.push("pool"));
    lifecycle.onStop("relay", async () => void order.push("relay"));
    lifecycle.onStop("grpc", () => void order.push("grpc"));
    await lifecycle.stop();
    expect(order).toEqual(["grpc", "relay", "pool"]);
  });

  it("logs a failing step and still runs the ones after it", async () => {
    const recorded = recordingLogger();
    const { log } = recorded;
    const order: string[] = [];
    const lifecycle = new Lifecycle(log);
    lifecycle.onStop("pool", () => void order.push("pool"));
    lifecycle.onStop("nats", () => Promise.reject(new Error("already closed")));
    await lifecycle.stop();
    expect(order).toEqual(["pool"]);
    expect(recorded.records()).toEqual([
      expect.objectContaining({
        msg: "shutdown step failed",
        step: "nats",
        err: expect.objectContaining({ message: "already closed" }),
      }),
    ]);
  });

  it("stops once, however often stop() is called", async () => {
    let stops = 0;
    const lifecycle = new Lifecycle(quietLog);
    lifecycle.onStop("slow", async () => {
      stops += 1;
      await new Promise((resolve) => setTimeout(resolve, 50));
    });
    const [first, second] = [lifecycle.stop(), lifecycle.stop()];
    expect(second).toBe(first);
    await Promise.all([first, second, lifecycle.stop()]);
    expect(stops).toBe(1);
  });
});

describe("connectRedis", () => {
  it("connects to the real Redis and round-trips a value", async () => {
    const redis = await connectRedis(REDIS_URL, quietLog);
    const key = unique("kit-test");
    try {
      await redis.set(key, "v", { EX: 10 });
      expect(await redis.get(key)).toBe("v");
    } finally {
      await redis.del(key);
      await redis.close();
    }
  });
});

describe("startTelemetry", () => {
  it("starts no SDK without OTEL_* settings, and its stop function resolves", async () => {
    const saved = { ...process.env };
    for (const name of [
      "OTEL_EXPORTER_OTLP_ENDPOINT",
      "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
      "OTEL_TRACES_EXPORTER",
    ]) {
      delete process.env[name];
    }
    try {
      const stop = await startTelemetry("kit-test");
      expect(process.env.OTEL_SERVICE_NAME).toBe(saved.OTEL_SERVICE_NAME);
      await expect(stop()).resolves.toBeUndefined();
    } finally {
      process.env = saved;
    }
  });
});
