import { generateKeyPairSync } from "node:crypto";
import type { ServiceError } from "@grpc/grpc-js";
import {
  CallSigner,
  CallVerifier,
  createClient,
  notFound,
  serve,
  startGrpcServer,
  type AsyncService,
  type ClientOptions,
  type GrpcServer,
  type Logger,
} from "@canopy/kit";
import { auth } from "@canopy/protos";
import { quietLog } from "./infra";

export type AuthService = typeof auth.AuthServiceService;
export type AuthHandlers = Partial<AsyncService<AuthService>>;
export type AuthClient = ReturnType<typeof createClient<AuthService>>;

/** The generated auth service with only `handlers` implemented; every other method answers 404 User. */
export function authImplementation(handlers: AuthHandlers): AsyncService<AuthService> {
  const unimplemented = async () => {
    throw notFound("User");
  };
  const methods = Object.keys(auth.AuthServiceService) as (keyof AuthService)[];
  return Object.fromEntries(
    methods.map((m) => [m, handlers[m] ?? unimplemented]),
  ) as AsyncService<AuthService>;
}

const running: { server: GrpcServer; client: AuthClient }[] = [];

/** The test gateway's keypair: `serveAuth` servers verify with it, their clients sign with it. */
export const gatewayKeys = generateKeyPairSync("ed25519");
export const testSigner = new CallSigner(gatewayKeys.privateKey);
export const testVerifier = new CallVerifier(gatewayKeys.publicKey);

/**
 * A real grpc-js server on a free port with `handlers`, and a real client to it that signs as the
 * test gateway. Both are closed by `closeAllServers` (call it in afterEach).
 */
export async function serveAuth(
  handlers: AuthHandlers,
  clientOptions: Partial<ClientOptions<AuthService>> = {},
  log: Logger = quietLog,
  serverOptions: { host?: string } = { host: "127.0.0.1" },
) {
  const server = await startGrpcServer({
    services: [serve(auth.AuthServiceService, authImplementation(handlers))],
    port: 0,
    ...serverOptions,
    verifier: testVerifier,
    log,
  });
  const address = `127.0.0.1:${server.port}`;
  const client = createClient(auth.AuthServiceService, {
    address,
    idempotent: ["getUser", "listUsers"],
    signer: testSigner,
    ...clientOptions,
  });
  running.push({ server, client });
  return { server, client, address };
}

export async function closeAllServers() {
  for (const { server, client } of running.splice(0)) {
    client.close();
    await server.shutdown(100);
  }
}

/** The error a call failed with; fails the test if the call succeeded. */
export async function failureOf(call: Promise<unknown>): Promise<ServiceError> {
  try {
    await call;
  } catch (err) {
    return err as ServiceError;
  }
  throw new Error("the call succeeded but was expected to fail");
}

export const user = (overrides: Partial<auth.User> = {}): auth.User =>
  auth.User.fromPartial({
    id: 1,
    username: "root",
    email: "root@example.com",
    name: "Administrator",
    ...overrides,
  });
