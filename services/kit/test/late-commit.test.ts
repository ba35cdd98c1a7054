import net from "node:net";
import { status } from "@grpc/grpc-js";
import { createClient, withTransaction, type Pool } from "@canopy/kit";
import { auth } from "@canopy/protos";
import { closeAllServers, failureOf, serveAuth, testSigner, user } from "./support/grpc";
import { sleep, throwawaySchema } from "./support/infra";

// A write whose call outlived its deadline: the gateway has answered 503 by then, so the write must
// not commit behind the client's back (a client that retries would meet its own write as a conflict).

let pool: Pool;
let drop: () => Promise<void>;

beforeAll(async () => {
  ({ pool, drop } = await throwawaySchema({ prefix: "kit_late_" }));
  await pool.query("CREATE TABLE notes (id bigserial PRIMARY KEY, body text NOT NULL)");
});
afterEach(closeAllServers);
afterAll(() => drop());

/** A TCP link to `target` that holds every chunk from the client for `delayMs` before passing it on. */
async function delayingLink(target: string) {
  const [host, port] = target.split(":") as [string, string];
  const sockets = new Set<net.Socket>();
  const link = {
    delayMs: 0,
    address: "",
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(port), host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("error", () => undefined);
    }
    client.on("data", (chunk) => {
      const delay = link.delayMs;
      if (delay) setTimeout(() => upstream.write(chunk), delay);
      else upstream.write(chunk);
    });
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  link.address = `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return link;
}

const notesNamed = async (body: string) =>
  (await pool.query("SELECT count(*) AS n FROM notes WHERE body = $1", [body])).rows[0].n as number;

/** A createUser handler with a transaction per `workMs`, each inserting `body`, then taking that long. */
function slowWrites(body: string, ...workMs: number[]) {
  return async () => {
    for (const ms of workMs)
      await withTransaction(pool, async (tx) => {
        await tx.query("INSERT INTO notes (body) VALUES ($1)", [body]);
        await sleep(ms);
      });
    return user();
  };
}

const createUser = (client: Awaited<ReturnType<typeof serveAuth>>["client"], deadlineMs: number) =>
  client.createUser(auth.CreateUserRequest.fromPartial({}), { deadlineMs });

describe("a call's transaction that would commit after the call's deadline", () => {
  it("rolls back: the caller sees DEADLINE_EXCEEDED and nothing is written", async () => {
    const { client } = await serveAuth({ createUser: slowWrites("late", 400) });
    expect((await failureOf(createUser(client, 200))).code).toBe(status.DEADLINE_EXCEEDED);
    await sleep(500); // the handler's work ends after the caller gave up
    expect(await notesNamed("late")).toBe(0);
  });

  it("commits when the work ends in time", async () => {
    const { client } = await serveAuth({ createUser: slowWrites("in-time", 50) });
    await expect(createUser(client, 2_000)).resolves.toMatchObject({ username: "root" });
    expect(await notesNamed("in-time")).toBe(1);
  });

  it("lets a later transaction of the same call finish what the first began", async () => {
    const { client } = await serveAuth({ createUser: slowWrites("begun", 50, 1_000) });
    expect((await failureOf(createUser(client, 700))).code).toBe(status.DEADLINE_EXCEEDED);
    await sleep(600);
    expect(await notesNamed("begun")).toBe(2);
  });

  it("rolls back when the call reached the service late and its work then outlasted the deadline", async () => {
    // grpc-timeout is relative: a service counts it from when it reads the call, so a call that
    // spent 700 ms of its 1,000 on the way (here a slow link; in a saturated service, unread in its
    // socket) gets its whole second again. The handler's 600 ms of work end ~1,300 ms after the
    // caller started: past its deadline, though within 1,000 ms of the read.
    const { address } = await serveAuth({ createUser: slowWrites("arrived-late", 600) });
    const link = await delayingLink(address);
    const client = createClient(auth.AuthServiceService, {
      address: link.address,
      idempotent: [],
      signer: testSigner,
    });
    try {
      await failureOf(client.getUser(auth.GetUserRequest.fromPartial({}))); // connected, with no delay
      link.delayMs = 700;
      expect((await failureOf(createUser(client, 1_000))).code).toBe(status.DEADLINE_EXCEEDED);
      await sleep(800); // the handler's work ends after the caller gave up
      expect(await notesNamed("arrived-late")).toBe(0);
    } finally {
      client.close();
      link.close();
    }
  });

  it("is not held to any deadline outside a call (event consumers, schedulers)", async () => {
    await slowWrites("no-call", 10)();
    expect(await notesNamed("no-call")).toBe(1);
  });
});
