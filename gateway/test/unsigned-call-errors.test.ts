/**
 * A service refusing the gateway's signature (the two were given different keys) is the
 * deployment's fault, not the caller's: a 503 naming the service, never the user's 401. A real
 * kit gRPC server verifying with another key, and a client built from the gateway's table.
 */
import { generateKeyPairSync } from "node:crypto";
import pino from "pino";
import {
  ANONYMOUS,
  CallVerifier,
  loadCallVerifier,
  serve,
  startGrpcServer,
  unauthenticated,
  type GrpcServer,
} from "@canopy/kit";
import { auth } from "@canopy/protos";
import { loadGatewayConfig } from "../src";
import { connectClient, CLIENTS } from "../src/grpc/clients";
import { toHttpError } from "../src/http/errors";

const quiet = pino({ level: "silent" });
const servers: GrpcServer[] = [];
afterAll(() => Promise.all(servers.map((s) => s.shutdown(100))));

/** An auth service whose getUser refuses as the policy does for an anonymous caller. */
async function authServiceVerifyingWith(verifier: CallVerifier) {
  const refuse = async () => {
    throw unauthenticated();
  };
  const implementation = Object.fromEntries(Object.keys(auth.AuthServiceService).map((m) => [m, refuse]));
  const server = await startGrpcServer({
    services: [serve(auth.AuthServiceService, implementation as never)],
    port: 0,
    verifier,
    log: quiet,
  });
  servers.push(server);
  return connectClient(
    CLIENTS.auth,
    loadGatewayConfig({ ...process.env, CANOPY_AUTH_ADDRESS: `127.0.0.1:${server.port}` }),
  );
}

const failureOf = (call: Promise<unknown>) =>
  call.then(
    () => {
      throw new Error("the call should have failed");
    },
    (err: unknown) => err,
  );

test("a call the service cannot verify is a 503 naming the service, not a 401", async () => {
  const otherKey = new CallVerifier(generateKeyPairSync("ed25519").publicKey);
  const client = await authServiceVerifyingWith(otherKey);
  try {
    const err = await failureOf(
      client.getUser({ actor: ANONYMOUS, id: 1, username: "", withCustomAttributes: false }),
    );
    expect(err).toMatchObject({ code: 16, details: "call not signed by the gateway" });
    expect(toHttpError(err)).toMatchObject({
      status: 503,
      body: { message: "503 Service Unavailable - auth service does not accept the gateway's signature" },
    });
  } finally {
    client.close();
  }
});

test("the service's own UNAUTHENTICATED, on a call it verified, stays the caller's 401", async () => {
  const client = await authServiceVerifyingWith(loadCallVerifier(loadGatewayConfig(process.env)));
  try {
    const err = await failureOf(
      client.getUser({ actor: ANONYMOUS, id: 1, username: "", withCustomAttributes: false }),
    );
    expect(err).toMatchObject({ code: 16 });
    expect(toHttpError(err)).toMatchObject({ status: 401, body: { message: "401 Unauthorized" } });
  } finally {
    client.close();
  }
});
