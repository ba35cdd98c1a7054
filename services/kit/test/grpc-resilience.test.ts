import { credentials, makeGenericClientConstructor, status, type ClientReadableStream } from "@grpc/grpc-js";
import { service as healthService } from "grpc-health-check";
import { CanopyError, createClient } from "@canopy/kit";
import { auth } from "@canopy/protos";
import { closeAllServers, failureOf, serveAuth, user } from "./support/grpc";
import { waitFor } from "./support/infra";

afterEach(closeAllServers);

const unavailable = () =>
  new CanopyError(status.UNAVAILABLE, {
    resource: "",
    publicMessage: "try later",
    fieldErrors: {},
    httpStatus: 0,
    errorBody: false,
  });

/** A handler that throws UNAVAILABLE `failures` times, then answers; `calls` counts every attempt. */
function flaky<T>(failures: number, answer: () => T) {
  const counter = { calls: 0 };
  const handler = async () => {
    counter.calls += 1;
    if (counter.calls <= failures) throw unavailable();
    return answer();
  };
  return { counter, handler };
}

describe("retries", () => {
  it("retries an idempotent method on UNAVAILABLE until it succeeds", async () => {
    const getUser = flaky(2, () => user({ id: 9 }));
    const { client } = await serveAuth({ getUser: getUser.handler });
    await expect(client.getUser({ id: 9, username: "", withCustomAttributes: false })).resolves.toMatchObject(
      { id: 9 },
    );
    expect(getUser.counter.calls).toBe(3);
  });

  it("gives up after maxAttempts and reports UNAVAILABLE", async () => {
    const getUser = flaky(100, () => user());
    const { client } = await serveAuth({ getUser: getUser.handler }, { maxAttempts: 3 });
    const err = await failureOf(client.getUser({ id: 1, username: "", withCustomAttributes: false }));
    expect(err.code).toBe(status.UNAVAILABLE);
    expect(err.details).toBe("try later");
    expect(getUser.counter.calls).toBe(3);
  });

  it("never retries a method that is not idempotent", async () => {
    const createUser = flaky(1, () => user());
    const { client } = await serveAuth({ createUser: createUser.handler });
    const err = await failureOf(client.createUser(auth.CreateUserRequest.fromPartial({})));
    expect(err.code).toBe(status.UNAVAILABLE);
    expect(createUser.counter.calls).toBe(1);
  });

  it("does not retry an idempotent method on other errors", async () => {
    let calls = 0;
    const { client } = await serveAuth({
      getUser: async () => {
        calls += 1;
        throw new CanopyError(status.NOT_FOUND, {
          resource: "User",
          publicMessage: "",
          fieldErrors: {},
          httpStatus: 0,
          errorBody: false,
        });
      },
    });
    expect((await failureOf(client.getUser({ id: 1, username: "", withCustomAttributes: false }))).code).toBe(
      status.NOT_FOUND,
    );
    expect(calls).toBe(1);
  });

  it("fails fast with UNAVAILABLE, not at the deadline, when nothing listens", async () => {
    const client = createClient(auth.AuthServiceService, {
      address: "127.0.0.1:1",
      idempotent: ["getUser"],
      deadlineMs: 5_000,
    });
    try {
      // Waiting for the deadline would end in DEADLINE_EXCEEDED, not UNAVAILABLE.
      expect(
        (await failureOf(client.getUser({ id: 1, username: "", withCustomAttributes: false }))).code,
      ).toBe(status.UNAVAILABLE);
    } finally {
      client.close();
    }
  });
});

type HealthStatus = "UNKNOWN" | "SERVING" | "NOT_SERVING" | "SERVICE_UNKNOWN";
type HealthResponse = { status: HealthStatus };

/** A grpc.health.v1 client: Check through the kit's createClient, Watch through grpc-js directly. */
function healthClients(address: string) {
  const check = createClient(healthService, { address, idempotent: [] });
  const Raw = makeGenericClientConstructor(healthService, "grpc.health.v1.Health");
  const raw = new Raw(address, credentials.createInsecure());
  const watch = (): { seen: HealthStatus[]; stream: ClientReadableStream<HealthResponse> } => {
    const seen: HealthStatus[] = [];
    const stream = (raw as unknown as { Watch(req: object): ClientReadableStream<HealthResponse> }).Watch({
      service: "",
    });
    stream.on("data", (r: HealthResponse) => seen.push(r.status));
    stream.on("error", () => undefined); // cancelled when the server goes away
    return { seen, stream };
  };
  return {
    check: () => check.Check!({ service: "" }) as Promise<HealthResponse>,
    watch,
    close: () => {
      check.close();
      raw.close();
    },
  };
}

describe("grpc.health.v1 and graceful shutdown", () => {
  it("answers SERVING while the server runs", async () => {
    const { address } = await serveAuth({});
    const health = healthClients(address);
    try {
      await expect(health.check()).resolves.toEqual({ status: "SERVING" });
    } finally {
      health.close();
    }
  });

  it("turns NOT_SERVING as soon as shutdown starts", async () => {
    const { server, address } = await serveAuth({});
    const health = healthClients(address);
    try {
      const watcher = health.watch();
      await waitFor("the first health status", () => watcher.seen.length > 0);
      expect(watcher.seen).toEqual(["SERVING"]);
      // The watch stream stays open, so shutdown waits out its grace period before forcing.
      const stopped = server.shutdown(300);
      await waitFor("NOT_SERVING", () => watcher.seen.includes("NOT_SERVING"), 1_000);
      expect(watcher.seen).toEqual(["SERVING", "NOT_SERVING"]);
      await stopped;
    } finally {
      health.close();
    }
  });

  it("lets an in-flight call finish, and refuses new calls, during shutdown", async () => {
    let release!: () => void;
    const { server, client } = await serveAuth({
      getUser: () => new Promise((resolve) => (release = () => resolve(user({ id: 5 })))),
    });
    const inFlight = client.getUser({ id: 5, username: "", withCustomAttributes: false });
    await waitFor("the call to reach the handler", () => release !== undefined);
    let stoppedAt = 0;
    const stopped = server.shutdown(5_000).then(() => (stoppedAt = Date.now()));
    const late = await failureOf(client.createUser(auth.CreateUserRequest.fromPartial({})));
    expect(late.code).toBe(status.UNAVAILABLE);
    expect(stoppedAt).toBe(0); // still draining: the in-flight call holds it
    const releasedAt = Date.now();
    release();
    await expect(inFlight).resolves.toMatchObject({ id: 5 });
    await stopped;
    expect(stoppedAt).toBeGreaterThanOrEqual(releasedAt);
  });
});
