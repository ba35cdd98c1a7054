// The launcher's plan: which processes on which ports, for one replica and for several.
import { planStack, replicaCount } from "../lib/plan.cjs";

const services = [
  {
    name: "auth",
    entry: "services/auth/dist/main.js",
    grpc: {
      portVariable: "CANOPY_AUTH_GRPC_PORT",
      defaultPort: 50051,
      addressVariable: "CANOPY_AUTH_ADDRESS",
    },
    healthPortVariable: "CANOPY_AUTH_HEALTH_PORT",
  },
  {
    name: "gateway",
    entry: "gateway/dist/main.js",
    http: { portVariable: "CANOPY_PORT", defaultPort: 8080 },
    healthPortVariable: "CANOPY_GATEWAY_HEALTH_PORT",
  },
];

/** Free ports handed out in order, so the plan is predictable. */
const counter = (from: number) => {
  let next = from;
  return async () => next++;
};

describe("CANOPY_REPLICAS", () => {
  it("is 1 when unset or empty, and refuses anything but a whole number from 1 to 16", () => {
    expect(replicaCount(undefined)).toBe(1);
    expect(replicaCount("")).toBe(1);
    expect(replicaCount("2")).toBe(2);
    for (const bad of ["0", "-1", "1.5", "two", "17"]) {
      expect(() => replicaCount(bad)).toThrow(`CANOPY_REPLICAS=${bad} is not a whole number from 1 to 16`);
    }
  });
});

describe("planStack", () => {
  it("with one replica: default ports, a plain address, no proxy", async () => {
    const plan = await planStack({ services, env: {}, replicas: 1, freePort: counter(40000) });
    expect(plan.env).toEqual({ CANOPY_AUTH_ADDRESS: "127.0.0.1:50051" });
    expect(plan.proxies).toEqual([]);
    expect(plan.services.map((s: { replicas: unknown }) => s.replicas)).toEqual([
      [
        {
          tag: "auth",
          healthPort: 40000,
          env: { CANOPY_HEALTH_PORT: "40000", CANOPY_AUTH_GRPC_PORT: "50051" },
        },
      ],
      [{ tag: "gateway", healthPort: 40001, env: { CANOPY_HEALTH_PORT: "40001", CANOPY_PORT: "8080" } }],
    ]);
  });

  it("with two: every replica its own ports, the address lists both, the public port is proxied", async () => {
    const env = { CANOPY_AUTH_GRPC_PORT: "7000", CANOPY_AUTH_HEALTH_PORT: "7100,7101", CANOPY_PORT: "9000" };
    const plan = await planStack({ services, env, replicas: 2, freePort: counter(40000) });
    expect(plan.env).toEqual({ CANOPY_AUTH_ADDRESS: "ipv4:127.0.0.1:7000,127.0.0.1:40000" });
    const [auth, gateway] = plan.services;
    expect(auth.replicas).toEqual([
      { tag: "auth#1", healthPort: 7100, env: { CANOPY_HEALTH_PORT: "7100", CANOPY_AUTH_GRPC_PORT: "7000" } },
      {
        tag: "auth#2",
        healthPort: 7101,
        env: { CANOPY_HEALTH_PORT: "7101", CANOPY_AUTH_GRPC_PORT: "40000" },
      },
    ]);
    const gatewayPorts = gateway.replicas.map((r: { env: Record<string, string> }) =>
      Number(r.env.CANOPY_PORT),
    );
    expect(gatewayPorts).toEqual([40003, 40004]);
    expect(plan.proxies).toEqual([{ name: "gateway", port: 9000, upstreams: [40003, 40004] }]);
  });

  it("keeps an address the caller set, and refuses a port variable that is not a port", async () => {
    const kept = await planStack({
      services,
      env: { CANOPY_AUTH_ADDRESS: "dns:///auth.internal:50051" },
      replicas: 2,
      freePort: counter(40000),
    });
    expect(kept.env.CANOPY_AUTH_ADDRESS).toBe("dns:///auth.internal:50051");
    await expect(
      planStack({ services, env: { CANOPY_AUTH_HEALTH_PORT: "70000" }, replicas: 1, freePort: counter(1) }),
    ).rejects.toThrow("CANOPY_AUTH_HEALTH_PORT=70000 is not a port");
  });
});
