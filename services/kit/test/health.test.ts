import {
  connectRedis,
  createPool,
  metrics,
  startHealthServer,
  type Pool,
  type ReadinessCheck,
  type RedisClient,
} from "@canopy/kit";
import { testDatabaseUrl, quietLog, REDIS_URL } from "./support/infra";

let pool: Pool;
let redis: RedisClient;
const servers: { close: () => Promise<void> }[] = [];

beforeAll(async () => {
  pool = createPool({ url: testDatabaseUrl(), schema: "public", max: 2 });
  redis = await connectRedis(REDIS_URL, quietLog);
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

afterAll(async () => {
  await pool.end();
  await redis.close();
});

const realChecks = (): ReadinessCheck[] => [
  { name: "postgres", check: () => pool.query("SELECT 1") },
  { name: "redis", check: () => redis.ping() },
];

async function startSidePort(checks: ReadinessCheck[]) {
  const server = await startHealthServer({ port: 0, host: "127.0.0.1", checks });
  servers.push(server);
  const get = async (path: string) => {
    const res = await fetch(`http://127.0.0.1:${server.port}${path}`);
    return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
  };
  return {
    server,
    get,
    getJson: async (path: string) => {
      const res = await get(path);
      return { status: res.status, body: JSON.parse(res.text) as Record<string, unknown> };
    },
  };
}

describe("the health side port", () => {
  it("answers liveness with 200", async () => {
    const { getJson } = await startSidePort([]);
    expect(await getJson("/-/liveness")).toEqual({ status: 200, body: { status: "ok" } });
  });

  it("answers readiness with 200 when every dependency answers", async () => {
    const { getJson } = await startSidePort(realChecks());
    expect(await getJson("/-/readiness?all=1")).toEqual({
      status: 200,
      body: { status: "ok", failed: [], degraded: [], checks: { postgres: "ok", redis: "ok" } },
    });
  });

  it("answers readiness with 200 'degraded' when only a degradable dependency does not answer", async () => {
    const { getJson } = await startSidePort([
      ...realChecks(),
      { name: "nats", check: () => Promise.reject(new Error("CONNECTION_REFUSED")), degradable: true },
    ]);
    expect(await getJson("/-/readiness")).toEqual({
      status: 200,
      body: {
        status: "degraded",
        failed: [],
        degraded: ["nats"],
        checks: { postgres: "ok", redis: "ok", nats: "CONNECTION_REFUSED" },
      },
    });
  });

  it("answers readiness with 503 naming the dependency that does not answer, and why", async () => {
    const deadPool = createPool({ url: "postgres://postgres@127.0.0.1:1/none", schema: "public", max: 1 });
    try {
      const { getJson } = await startSidePort([
        ...realChecks().filter((c) => c.name === "redis"),
        { name: "postgres", check: () => deadPool.query("SELECT 1") },
      ]);
      const { status, body } = await getJson("/-/readiness");
      expect(status).toBe(503);
      expect(body).toMatchObject({ status: "failed", failed: ["postgres"], checks: { redis: "ok" } });
      expect((body.checks as Record<string, string>).postgres).toMatch(/ECONNREFUSED/);
    } finally {
      await deadPool.end();
    }
  });

  it("counts a check that hangs as failed after its timeout instead of hanging", async () => {
    const { getJson } = await startSidePort([{ name: "ldap", check: () => new Promise(() => undefined) }]);
    const { status, body } = await getJson("/-/readiness");
    expect(status).toBe(503);
    expect(body).toMatchObject({ failed: ["ldap"], checks: { ldap: "no answer within 2000 ms" } });
  });

  it("answers readiness with 503 once the process is stopping, even with healthy dependencies", async () => {
    const { server, getJson } = await startSidePort(realChecks());
    server.markStopping();
    expect(await getJson("/-/readiness")).toMatchObject({ status: 503, body: { failed: ["shutting_down"] } });
    expect((await getJson("/-/liveness")).status).toBe(200);
  });

  it("exposes Prometheus metrics, Canopy's own and the process defaults", async () => {
    metrics.grpcServerSeconds.observe({ method: "/canopy.test.v1.Probe/Ping", code: "OK" }, 0.003);
    const { get } = await startSidePort([]);
    const res = await get("/metrics");
    expect(res.status).toBe(200);
    expect(res.type).toMatch(/^text\/plain/);
    expect(res.text).toContain("# TYPE canopy_grpc_server_handling_seconds histogram");
    expect(res.text).toContain(
      'canopy_grpc_server_handling_seconds_bucket{le="0.005",method="/canopy.test.v1.Probe/Ping",code="OK"} 1',
    );
    expect(res.text).toContain("# TYPE canopy_http_server_request_seconds histogram");
    expect(res.text).toMatch(/^process_cpu_user_seconds_total \d/m);
  });

  it("answers 404 on any other path", async () => {
    const { getJson } = await startSidePort([]);
    expect(await getJson("/-/nothing")).toEqual({ status: 404, body: { error: "404 Not Found" } });
  });
});
