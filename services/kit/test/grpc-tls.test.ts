import fs from "node:fs";
import { credentials, makeGenericClientConstructor, status, type ServiceError } from "@grpc/grpc-js";
import {
  ConfigError,
  createClient,
  loadGrpcTls,
  serve,
  startGrpcServer,
  type GrpcServer,
  type GrpcTls,
} from "@canopy/kit";
import { auth } from "@canopy/protos";
import { testPki, type TestPki } from "./support/certificates";
import { authImplementation, failureOf, testSigner, testVerifier, user } from "./support/grpc";
import { quietLog } from "./support/infra";

// Mutual TLS: with CANOPY_GRPC_TLS_* set, only holders of a certificate from the CA connect at all.

let pki: TestPki;
let otherPki: TestPki;
beforeAll(() => {
  pki = testPki();
  otherPki = testPki();
});
afterAll(() => {
  pki.remove();
  otherPki.remove();
});

const tlsOf = (p: TestPki, name: string): GrpcTls => {
  const { cert, key } = p.issue(name);
  return loadGrpcTls({ CANOPY_GRPC_TLS_CA: p.ca, CANOPY_GRPC_TLS_CERT: cert, CANOPY_GRPC_TLS_KEY: key })!;
};

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A TLS server whose getUser counts the calls that reach it. */
async function serveWithTls() {
  const handled: number[] = [];
  const server: GrpcServer = await startGrpcServer({
    services: [
      serve(
        auth.AuthServiceService,
        authImplementation({
          getUser: async (req) => {
            handled.push(req.id);
            return user({ id: req.id });
          },
        }),
      ),
    ],
    port: 0,
    verifier: testVerifier,
    tls: tlsOf(pki, "service"),
    log: quietLog,
  });
  cleanup.push(() => server.shutdown(100));
  return { address: `localhost:${server.port}`, handled };
}

function client(address: string, tls: GrpcTls | null) {
  const c = createClient(auth.AuthServiceService, { address, idempotent: [], signer: testSigner, tls });
  cleanup.push(() => c.close());
  return c;
}

describe("gRPC with mutual TLS", () => {
  it("answers a signed call from a client with a certificate from the CA", async () => {
    const { address, handled } = await serveWithTls();
    await expect(
      client(address, tlsOf(pki, "gateway")).getUser({ id: 3, username: "", withCustomAttributes: false }),
    ).resolves.toMatchObject({
      id: 3,
    });
    expect(handled).toEqual([3]);
  });

  it("lets no call through from a plaintext client, a client without a certificate, or another CA's", async () => {
    const { address, handled } = await serveWithTls();
    const plaintext = await failureOf(
      client(address, null).getUser({ id: 1, username: "", withCustomAttributes: false }),
    );
    expect(plaintext.code).toBe(status.UNAVAILABLE);

    const strangers = await failureOf(
      client(address, tlsOf(otherPki, "gateway")).getUser({
        id: 1,
        username: "",
        withCustomAttributes: false,
      }),
    );
    expect(strangers.code).toBe(status.UNAVAILABLE);

    const Raw = makeGenericClientConstructor({ getUser: auth.AuthServiceService.getUser }, "canopy");
    const noCertificate = new Raw(address, credentials.createSsl(fs.readFileSync(pki.ca))) as unknown as {
      getUser(req: object, cb: (err: ServiceError | null) => void): void;
      close(): void;
    };
    cleanup.push(() => noCertificate.close());
    const anonymous = await new Promise<ServiceError | null>((resolve) =>
      noCertificate.getUser({ id: 1, username: "", withCustomAttributes: false }, resolve),
    );
    expect(anonymous?.code).toBe(status.UNAVAILABLE);

    expect(handled).toEqual([]);
  });
});

describe("loadGrpcTls", () => {
  it("is off when no file is named, and wants all three files together", () => {
    expect(loadGrpcTls({})).toBeNull();
    let error: unknown;
    try {
      loadGrpcTls({ CANOPY_GRPC_TLS_CA: pki.ca });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      "CANOPY_GRPC_TLS_CERT is missing (the TLS files go together)",
      "CANOPY_GRPC_TLS_KEY is missing (the TLS files go together)",
    ]);
  });
});
