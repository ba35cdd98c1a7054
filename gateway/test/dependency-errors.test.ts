/**
 * A dependency that does not answer is a 503 naming that dependency: every client built from the
 * gateway's table tags its failures with its service (grpc/clients.ts), over a real gRPC channel.
 */
import { Metadata } from "@grpc/grpc-js";
import { ANONYMOUS } from "@canopy/kit";
import { auth } from "@canopy/protos";
import { loadGatewayConfig } from "../src";
import { connectClient, createClients } from "../src/grpc/clients";
import { dependencyOf } from "../src/grpc/dependency";
import { toHttpError } from "../src/http/errors";

// Nothing listens on port 1: every call fails at once with UNAVAILABLE.
const config = loadGatewayConfig({ ...process.env, CANOPY_AUTH_ADDRESS: "127.0.0.1:1" });

const failureOf = (call: Promise<unknown>) =>
  call.then(
    () => {
      throw new Error("the call should have failed");
    },
    (err: unknown) => err,
  );

test("a client of another service names that service in the 503", async () => {
  const groups = connectClient(
    {
      service: "groups",
      address: "CANOPY_AUTH_ADDRESS",
      definition: auth.AuthServiceService,
      idempotent: [],
    },
    config,
  );
  try {
    const err = await failureOf(groups.getUser({ id: 1, username: "", withCustomAttributes: false }));
    expect(dependencyOf(err)).toBe("groups");
    expect(toHttpError(err)).toMatchObject({
      status: 503,
      body: { message: "503 Service Unavailable - groups service is not answering" },
    });
  } finally {
    groups.close();
  }
});

test("the table's clients say auth, and keep grpc-js's error for code checks", async () => {
  const clients = createClients(config);
  try {
    const err = await failureOf(clients.oauth.listApplications({ actor: ANONYMOUS, instance: true }));
    expect(err).toMatchObject({ code: 14 }); // UNAVAILABLE, still a ServiceError
    expect(toHttpError(err)?.body).toEqual({
      message: "503 Service Unavailable - auth service is not answering",
    });
  } finally {
    clients.close();
  }
});

test("an error no client tagged is not blamed on auth", () => {
  const untagged = Object.assign(new Error("14 UNAVAILABLE"), {
    code: 14,
    details: "",
    metadata: new Metadata(),
  });
  expect(toHttpError(untagged)?.body).toEqual({
    message: "503 Service Unavailable - a service is not answering",
  });
});
