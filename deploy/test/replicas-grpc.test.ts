// With CANOPY_REPLICAS > 1 the launcher hands the gateway one address naming every replica of a
// service; the kit's gRPC client must spread calls over all of them, not stick to the first.
import { generateKeyPairSync } from "node:crypto";
import pino from "pino";
import {
  CallSigner,
  CallVerifier,
  createClient,
  notFound,
  serve,
  startGrpcServer,
  type AsyncService,
  type GrpcServer,
} from "@canopy/kit";
import { auth } from "@canopy/protos";
import { grpcTarget } from "../lib/manifest.cjs";

type AuthService = typeof auth.AuthServiceService;

/** An auth service whose getUser answers with `name`, so a reply tells which replica served it. */
function replica(name: string): AsyncService<AuthService> {
  const methods = Object.keys(auth.AuthServiceService) as (keyof AuthService)[];
  const unimplemented = async () => {
    throw notFound("User");
  };
  const handlers: Record<string, unknown> = Object.fromEntries(methods.map((m) => [m, unimplemented]));
  handlers.getUser = async () => auth.User.fromPartial({ id: 1, username: name });
  return handlers as AsyncService<AuthService>;
}

describe("a client given every replica's address", () => {
  const log = pino({ level: "silent" });
  const servers: GrpcServer[] = [];
  const keys = generateKeyPairSync("ed25519");
  let client: ReturnType<typeof createClient<AuthService>>;

  beforeAll(async () => {
    for (const name of ["replica-1", "replica-2"]) {
      servers.push(
        await startGrpcServer({
          services: [serve(auth.AuthServiceService, replica(name))],
          port: 0,
          host: "127.0.0.1",
          verifier: new CallVerifier(keys.publicKey),
          log,
        }),
      );
    }
    client = createClient(auth.AuthServiceService, {
      address: grpcTarget(servers.map((s) => s.port)),
      idempotent: ["getUser"],
      signer: new CallSigner(keys.privateKey),
    });
  });
  afterAll(async () => {
    client.close();
    await Promise.all(servers.map((s) => s.shutdown(1_000)));
  });

  it("calls every replica (round-robin), not only the first", async () => {
    // A replica takes calls once its connection is up, so call until both answered (pick_first never would).
    const served = new Set<string>();
    for (let i = 0; i < 50 && served.size < 2; i++) {
      served.add((await client.getUser({ id: 1, username: "", withCustomAttributes: false })).username);
    }
    expect(served).toEqual(new Set(["replica-1", "replica-2"]));
  });
});
