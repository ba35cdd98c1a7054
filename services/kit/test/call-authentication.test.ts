import { generateKeyPairSync } from "node:crypto";
import {
  credentials,
  makeGenericClientConstructor,
  Metadata,
  status,
  type ServiceError,
} from "@grpc/grpc-js";
import { service as healthService } from "grpc-health-check";
import { CALL_ASSERTION_HEADER, CallSigner, createClient } from "@canopy/kit";
import { auth } from "@canopy/protos";
import { closeAllServers, failureOf, serveAuth, testSigner, user } from "./support/grpc";

// Services refuse any call the gateway did not sign; see services/kit/src/grpc/call-assertion.ts.

afterEach(closeAllServers);

const GET_USER = auth.AuthServiceService.getUser;
const LIST_USERS = auth.AuthServiceService.listUsers;
const nowSeconds = () => Math.floor(Date.now() / 1000);
const bytesOf = (request: auth.GetUserRequest) => GET_USER.requestSerialize(request);

/** A server whose getUser answers the user it was asked for, counting the calls that got through. */
async function serveCountingGetUser() {
  const handled: auth.GetUserRequest[] = [];
  const served = await serveAuth({
    getUser: async (req) => {
      handled.push(req);
      return user({ id: req.id });
    },
  });
  return { ...served, handled };
}

/** Calls GetUser with exactly this assertion (or none), bypassing the kit's signing client. */
function rawGetUser(address: string, request: auth.GetUserRequest, assertion?: string) {
  const Raw = makeGenericClientConstructor({ getUser: GET_USER }, "canopy");
  const raw = new Raw(address, credentials.createInsecure()) as unknown as {
    getUser(req: object, md: Metadata, cb: (err: ServiceError | null, res: auth.User) => void): void;
    close(): void;
  };
  const metadata = new Metadata();
  if (assertion !== undefined) metadata.set(CALL_ASSERTION_HEADER, assertion);
  return new Promise<auth.User>((resolve, reject) =>
    raw.getUser(request, metadata, (err, res) => {
      raw.close();
      return err ? reject(err) : resolve(res);
    }),
  );
}

async function expectRefused(call: Promise<unknown>) {
  const err = await failureOf(call);
  expect(err.code).toBe(status.UNAUTHENTICATED);
  expect(err.details).toBe("call not signed by the gateway");
}

describe("a service's gRPC port", () => {
  it("answers a call the gateway signed", async () => {
    const { client, handled } = await serveCountingGetUser();
    await expect(client.getUser({ id: 7, username: "", withCustomAttributes: false })).resolves.toMatchObject(
      { id: 7 },
    );
    expect(handled).toHaveLength(1);
  });

  it("answers a correct assertion sent by hand (the control for the refusals below)", async () => {
    const { address } = await serveCountingGetUser();
    const request = { id: 7, username: "", withCustomAttributes: false };
    const assertion = testSigner.sign(GET_USER.path, bytesOf(request));
    await expect(rawGetUser(address, request, assertion)).resolves.toMatchObject({ id: 7 });
  });

  it("refuses a call with no assertion, without running the handler", async () => {
    const { address, handled } = await serveCountingGetUser();
    const unsigned = createClient(auth.AuthServiceService, { address, idempotent: [] });
    try {
      await expectRefused(unsigned.getUser({ id: 7, username: "", withCustomAttributes: false }));
    } finally {
      unsigned.close();
    }
    await expectRefused(rawGetUser(address, { id: 7, username: "", withCustomAttributes: false }));
    await expectRefused(
      rawGetUser(address, { id: 7, username: "", withCustomAttributes: false }, "v1.garbage.garbage"),
    );
    expect(handled).toEqual([]);
  });

  it("refuses an assertion signed with any other key", async () => {
    const { address, handled } = await serveCountingGetUser();
    const forger = new CallSigner(generateKeyPairSync("ed25519").privateKey);
    const request = { id: 1, username: "", withCustomAttributes: false };
    await expectRefused(rawGetUser(address, request, forger.sign(GET_USER.path, bytesOf(request))));
    expect(handled).toEqual([]);
  });

  it("refuses a valid assertion attached to another request (a swapped actor or id)", async () => {
    const { address, handled } = await serveCountingGetUser();
    const assertion = testSigner.sign(
      GET_USER.path,
      bytesOf({ id: 7, username: "", withCustomAttributes: false }),
    );
    await expectRefused(rawGetUser(address, { id: 1, username: "", withCustomAttributes: false }, assertion));
    expect(handled).toEqual([]);
  });

  it("refuses an assertion made for another method", async () => {
    const { address, handled } = await serveCountingGetUser();
    const request = { id: 7, username: "", withCustomAttributes: false };
    await expectRefused(rawGetUser(address, request, testSigner.sign(LIST_USERS.path, bytesOf(request))));
    expect(handled).toEqual([]);
  });

  it("refuses an expired assertion, and one from too far in the future", async () => {
    const { address, handled } = await serveCountingGetUser();
    const request = { id: 7, username: "", withCustomAttributes: false };
    const bytes = bytesOf(request);
    await expectRefused(
      rawGetUser(address, request, testSigner.sign(GET_USER.path, bytes, nowSeconds() - 120)),
    );
    await expectRefused(
      rawGetUser(address, request, testSigner.sign(GET_USER.path, bytes, nowSeconds() + 120)),
    );
    expect(handled).toEqual([]);
  });

  it("allows a few seconds of clock skew between gateway and service", async () => {
    const { address } = await serveCountingGetUser();
    const request = { id: 7, username: "", withCustomAttributes: false };
    const bytes = bytesOf(request);
    await expect(
      rawGetUser(address, request, testSigner.sign(GET_USER.path, bytes, nowSeconds() + 5)),
    ).resolves.toMatchObject({ id: 7 });
    await expect(
      rawGetUser(address, request, testSigner.sign(GET_USER.path, bytes, nowSeconds() - 65)),
    ).resolves.toMatchObject({ id: 7 });
  });

  it("answers health checks without an assertion, for probes", async () => {
    const { address } = await serveAuth({});
    const unsigned = createClient(healthService, { address, idempotent: [] });
    try {
      await expect(unsigned.Check!({ service: "" })).resolves.toEqual({ status: "SERVING" });
    } finally {
      unsigned.close();
    }
  });
});
