import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { status } from "@grpc/grpc-js";
import {
  baseConfigSchema,
  createClient,
  createPool,
  defineService,
  loadCallSigner,
  loadConfig,
  migrateOnly,
  runService,
  serve,
  type Pool,
  type ServiceContext,
} from "@canopy/kit";
import { startTestService, testDatabaseUrl, unique, waitFor } from "@canopy/kit/testing";
import { auth } from "@canopy/protos";
import { authImplementation, failureOf, user } from "./support/grpc";

// The skeleton every service's main.ts hands its parts to: what it starts, in which order it stops.
let migrations: string;
let admin: Pool;
const schemas: string[] = [];

beforeAll(async () => {
  migrations = await mkdtemp(path.join(tmpdir(), "kit-run-service-"));
  await writeFile(path.join(migrations, "0001_notes.sql"), "CREATE TABLE notes (id bigserial PRIMARY KEY);");
  admin = createPool({ url: testDatabaseUrl(), schema: "public", max: 2 });
});
afterAll(async () => {
  for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
});

/** A service named uniquely (its own schema), answering GetUser through `getUser`. */
function sampleService(parts: { getUser?: () => Promise<auth.User>; prepare?: () => Promise<void> } = {}) {
  const name = unique("kit_svc_");
  schemas.push(name);
  const built: { context?: ServiceContext<ReturnType<typeof loadConfig<typeof baseConfigSchema>>> } = {};
  const timerRuns: number[] = [];
  const definition = defineService({
    name,
    migrations,
    loadConfig: (env) => loadConfig(baseConfigSchema, env),
    grpcPort: () => 0,
    deps: (context) => (built.context = context),
    prepare: parts.prepare,
    grpc: () => [
      serve(auth.AuthServiceService, authImplementation({ getUser: parts.getUser ?? (async () => user()) })),
    ],
    timers: () => [{ name: "count", everyMs: 3_600_000, atStart: true, run: async () => timerRuns.push(1) }],
  });
  return { definition, built, timerRuns };
}

const readiness = async (port: number) => (await fetch(`http://127.0.0.1:${port}/-/readiness`)).status;

describe("runService", () => {
  it("serves only calls the gateway signed, on the configured loopback host", async () => {
    const { definition } = sampleService();
    const service = await startTestService(definition);
    try {
      expect(service.config.CANOPY_GRPC_HOST).toBe("127.0.0.1");
      const unsigned = service.client(auth.AuthServiceService, { signer: undefined });
      expect(
        (await failureOf(unsigned.getUser({ id: 1, username: "", withCustomAttributes: false }))).code,
      ).toBe(status.UNAUTHENTICATED);
      const signed = service.client(auth.AuthServiceService);
      await expect(
        signed.getUser({ id: 1, username: "", withCustomAttributes: false }),
      ).resolves.toMatchObject({ username: "root" });
    } finally {
      await service.stop();
    }
  });

  it("migrates its schema, runs start-up timers, and serves gRPC and health once it resolves", async () => {
    const { definition, timerRuns } = sampleService();
    const service = await startTestService(definition);
    try {
      const { rows } = await service.pool.query("SELECT to_regclass('notes') IS NOT NULL AS present");
      expect(rows[0].present).toBe(true);
      expect(timerRuns).toEqual([1]);
      const client = service.client(auth.AuthServiceService);
      await expect(
        client.getUser({ id: 1, username: "", withCustomAttributes: false }),
      ).resolves.toMatchObject({ username: "root" });
      expect(await readiness(service.healthPort)).toBe(200);
    } finally {
      await service.stop();
    }
  });

  it("says not ready first, drains in-flight calls, and closes everything when stopped", async () => {
    let release!: () => void;
    const { definition, built } = sampleService({
      getUser: () => new Promise((resolve) => (release = () => resolve(user()))),
    });
    const service = await runService(definition, {
      grpcPort: 0,
      env: { ...process.env, CANOPY_LOG_LEVEL: "silent" },
    });
    const client = createClient(auth.AuthServiceService, {
      address: `127.0.0.1:${service.grpcPort}`,
      idempotent: [],
      signer: loadCallSigner(service.config),
    });
    const inFlight = client.getUser({ id: 1, username: "", withCustomAttributes: false });
    await waitFor("the call to reach its handler", () => release !== undefined);

    const stopped = service.stop();
    // The in-flight call holds the gRPC server open; readiness already says no.
    expect(await readiness(service.healthPort)).toBe(503);
    const late = await failureOf(client.getUser({ id: 2, username: "", withCustomAttributes: false }));
    expect(late.code).toBe(status.UNAVAILABLE);
    release();
    await expect(inFlight).resolves.toMatchObject({ id: 1 });
    await stopped;
    client.close();

    await expect(fetch(`http://127.0.0.1:${service.healthPort}/-/liveness`)).rejects.toThrow();
    expect(built.context!.nc.isClosed()).toBe(true);
    expect((built.context!.pool as Pool & { ended: boolean }).ended).toBe(true);
  });

  it("undoes what it started when a step fails, and rejects with that step's error", async () => {
    const { definition, built } = sampleService({
      prepare: () => Promise.reject(new Error("bootstrap failed")),
    });
    await expect(startTestService(definition)).rejects.toThrow("bootstrap failed");
    expect(built.context!.nc.isClosed()).toBe(true);
    expect((built.context!.pool as Pool & { ended: boolean }).ended).toBe(true);
  });
});

describe("migrateOnly (`node <entry> migrate`, the Helm chart's migrations Job)", () => {
  it("applies the schema's migrations once and starts nothing else: NATS may be unreachable", async () => {
    const { definition, built, timerRuns } = sampleService();
    const env = { ...process.env, CANOPY_LOG_LEVEL: "silent", CANOPY_NATS_URL: "nats://127.0.0.1:1" };
    await expect(migrateOnly(definition, { env })).resolves.toEqual([
      "0000_kit_outbox",
      "0000_kit_outbox_stream_seq",
      "0001_notes",
    ]);
    await expect(migrateOnly(definition, { env })).resolves.toEqual([]);
    const { rows } = await admin.query(
      `SELECT to_regclass('${definition.name}.notes') IS NOT NULL AS present`,
    );
    expect(rows[0].present).toBe(true);
    expect(built.context).toBeUndefined();
    expect(timerRuns).toEqual([]);
  });

  it("rejects with the failing migration, naming the schema and version", async () => {
    const broken = await mkdtemp(path.join(tmpdir(), "kit-migrate-only-"));
    await writeFile(path.join(broken, "0001_broken.sql"), "CREATE TABLE;");
    const { definition } = sampleService();
    const env = { ...process.env, CANOPY_LOG_LEVEL: "silent" };
    await expect(migrateOnly({ ...definition, migrations: broken }, { env })).rejects.toThrow(
      `migration ${definition.name}/0001_broken failed`,
    );
  });
});
