import { status } from "@grpc/grpc-js";
import {
  badParameter,
  CanopyError,
  conflict,
  currentRequestId,
  errorDetailOf,
  fieldErrorsOf,
  forbidden,
  invalid,
  isServiceError,
  registry,
  requestContext,
} from "@canopy/kit";
import { auth } from "@canopy/protos";
import { recordingLogger } from "@canopy/kit/testing";
import { closeAllServers, failureOf, serveAuth, user } from "./support/grpc";
import { sleep } from "./support/infra";

afterEach(closeAllServers);

const BIG_ID = 2 ** 40 + 7; // beyond 32 bits: int64 must survive as an exact number

describe("a round trip through a real gRPC connection", () => {
  it("carries Timestamps as Date and int64 as number", async () => {
    const createdAt = new Date("2026-11-21T03:13:00.123Z");
    const { client } = await serveAuth({
      getUser: async (req) => user({ id: req.id, createdAt, lastSignInAt: undefined }),
      listUsers: async () => ({
        users: [user()],
        page: { page: 2, perPage: 20, total: BIG_ID, totalCapped: false, nextCursor: "" },
      }),
    });

    const got = await client.getUser({ id: BIG_ID, username: "", withCustomAttributes: false });
    expect(got.id).toBe(BIG_ID);
    expect(got.createdAt).toBeInstanceOf(Date);
    expect(got.createdAt!.toISOString()).toBe("2026-11-21T03:13:00.123Z");
    expect(got.lastSignInAt).toBeUndefined();
    expect(got.username).toBe("root");

    const list = await client.listUsers(auth.ListUsersRequest.fromPartial({}));
    expect(list.page).toEqual({ page: 2, perPage: 20, total: BIG_ID, totalCapped: false, nextCursor: "" });
    expect(list.users).toHaveLength(1);
  });
});

describe("errors", () => {
  it("answers NOT_FOUND with the resource in the detail trailer", async () => {
    const { client } = await serveAuth({});
    const err = await failureOf(client.getUser({ id: 1, username: "", withCustomAttributes: false }));
    expect(isServiceError(err)).toBe(true);
    expect(err.code).toBe(status.NOT_FOUND);
    expect(errorDetailOf(err)).toEqual({
      resource: "User",
      publicMessage: "",
      fieldErrors: {},
      httpStatus: 0,
      errorBody: false,
    });
  });

  it("carries model validation errors keyed by attribute", async () => {
    const { client } = await serveAuth({
      createUser: async () => {
        throw invalid({ username: ["has already been taken"], email: ["is invalid", "is too long"] });
      },
    });
    const err = await failureOf(client.createUser(auth.CreateUserRequest.fromPartial({})));
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(fieldErrorsOf(errorDetailOf(err))).toEqual({
      username: ["has already been taken"],
      email: ["is invalid", "is too long"],
    });
  });

  it.each([
    ["forbidden", forbidden("Owner cannot leave"), status.PERMISSION_DENIED],
    ["badParameter", badParameter("name is missing"), status.INVALID_ARGUMENT],
    ["conflict", conflict("Email has already been taken"), status.ALREADY_EXISTS],
  ])("carries the public message of %s as status details and in the detail", async (_name, error, code) => {
    const { client } = await serveAuth({
      deleteUser: async () => {
        throw error;
      },
    });
    const err = await failureOf(client.deleteUser({ actor: undefined, id: 3 }));
    expect(err.code).toBe(code);
    expect(err.details).toBe(error.detail.publicMessage);
    expect(errorDetailOf(err).publicMessage).toBe(error.detail.publicMessage);
  });

  it("answers an unexpected error as INTERNAL, logging its message but never sending it", async () => {
    const recorded = recordingLogger();
    const { log } = recorded;
    const { client } = await serveAuth(
      {
        getUser: async () => {
          throw new Error("relation users_secret_table does not exist at 10.0.0.5");
        },
        deleteUser: async () => {
          throw new CanopyError(
            status.INTERNAL,
            { resource: "", publicMessage: "", fieldErrors: {}, httpStatus: 0, errorBody: false },
            "ldap bind as cn=admin",
          );
        },
      },
      {},
      log,
    );
    for (const call of [
      client.getUser({ id: 1, username: "", withCustomAttributes: false }),
      client.deleteUser({ actor: undefined, id: 1 }),
    ]) {
      const err = await failureOf(call);
      expect(err.code).toBe(status.INTERNAL);
      expect(err.details).toBe("INTERNAL");
      expect(JSON.stringify({ message: err.message, metadata: err.metadata.getMap() })).not.toMatch(
        /users_secret_table|10\.0\.0\.5|cn=admin/,
      );
      expect(errorDetailOf(err)).toEqual({
        resource: "",
        publicMessage: "",
        fieldErrors: {},
        httpStatus: 0,
        errorBody: false,
      });
    }
    const failures = recorded.records().filter((r) => r.msg === "rpc failed");
    expect(failures.map((r) => r.method)).toEqual([
      "/canopy.auth.v1.AuthService/GetUser",
      "/canopy.auth.v1.AuthService/DeleteUser",
    ]);
    expect(JSON.stringify(failures[0])).toContain("users_secret_table");
  });

  it("gives an empty detail for an error that has none", async () => {
    const { client } = await serveAuth({}, { address: "127.0.0.1:1" });
    const err = await failureOf(client.getUser({ id: 1, username: "", withCustomAttributes: false }));
    expect(err.code).toBe(status.UNAVAILABLE);
    expect(errorDetailOf(err)).toEqual({
      resource: "",
      publicMessage: "",
      fieldErrors: {},
      httpStatus: 0,
      errorBody: false,
    });
  });
});

describe("deadlines", () => {
  // The handler answers only when the test lets it, after the assertion: an answer before that can
  // only be the deadline's.
  let release: () => void = () => undefined;
  const slowGetUser = async () => {
    await new Promise<void>((resolve) => (release = resolve));
    return user();
  };
  afterEach(() => release());

  it("turns a slow handler into DEADLINE_EXCEEDED at the per-call deadline", async () => {
    const { client } = await serveAuth({ getUser: slowGetUser });
    const err = await failureOf(
      client.getUser({ id: 1, username: "", withCustomAttributes: false }, { deadlineMs: 100 }),
    );
    expect(err.code).toBe(status.DEADLINE_EXCEEDED);
  });

  it("applies the client's default deadline to calls that set none", async () => {
    const { client } = await serveAuth({ getUser: slowGetUser }, { deadlineMs: 150 });
    const err = await failureOf(client.getUser({ id: 1, username: "", withCustomAttributes: false }));
    expect(err.code).toBe(status.DEADLINE_EXCEEDED);
  });

  it("lets a call that sets a longer deadline finish", async () => {
    const { client } = await serveAuth(
      { getUser: async () => (await sleep(200), user()) },
      { deadlineMs: 50 },
    );
    await expect(
      client.getUser({ id: 1, username: "", withCustomAttributes: false }, { deadlineMs: 2_000 }),
    ).resolves.toMatchObject({
      id: 1,
    });
  });
});

describe("request context", () => {
  it("carries x-request-id from the caller's requestContext to the handler's", async () => {
    const seen: (string | undefined)[] = [];
    const { client } = await serveAuth({
      getUser: async () => {
        seen.push(currentRequestId());
        return user();
      },
    });
    await requestContext.run({ requestId: "req-7f3a" }, () =>
      client.getUser({ id: 1, username: "", withCustomAttributes: false }),
    );
    await client.getUser({ id: 1, username: "", withCustomAttributes: false });
    expect(seen).toEqual(["req-7f3a", ""]);
  });
});

describe("metrics", () => {
  it("times every call by method and status code", async () => {
    const { client } = await serveAuth({ getUser: async () => user() });
    await client.getUser({ id: 1, username: "", withCustomAttributes: false });
    await failureOf(client.deleteUser({ actor: undefined, id: 1 }));
    const text = await registry.metrics();
    const count = (method: string, code: string) =>
      new RegExp(
        `canopy_grpc_server_handling_seconds_count\\{method="/canopy.auth.v1.AuthService/${method}",code="${code}"\\} [1-9]`,
      );
    expect(text).toMatch(count("GetUser", "OK"));
    expect(text).toMatch(count("DeleteUser", "NOT_FOUND"));
  });
});
