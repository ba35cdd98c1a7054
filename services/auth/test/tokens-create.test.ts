import { auth, type common } from "@canopy/protos";
import {
  countTokensOf,
  createUser,
  failed,
  failure,
  newSignedInUser,
  startHarness,
  status,
  unique,
  utcDate,
  type Harness,
} from "./support";

// CreatePersonalAccessToken: GitLab's POST /users/:user_id/personal_access_tokens (admin only).
// The secret is shown once; only a keyed digest is stored.
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

type Request = Partial<Omit<auth.CreatePersonalAccessTokenRequest, "actor">> & { actor?: common.Actor };
const create = (request: Request) =>
  h.rpc.createPersonalAccessToken({ actor: h.admin, name: unique("token-"), scopes: ["api"], ...request });

/** Expects the creation to fail without adding a token for `userId`; returns the failure. */
async function refused(userId: number, request: Request) {
  const before = await countTokensOf(h.db, userId);
  const result = await failure(create({ userId, ...request }));
  expect(await countTokensOf(h.db, userId)).toBe(before);
  return result;
}

const badParameter = (publicMessage: string) => failed(status.INVALID_ARGUMENT, { publicMessage });
const invalid = (fieldErrors: Record<string, string[]>) => failed(status.INVALID_ARGUMENT, { fieldErrors });

describe("who may create tokens", () => {
  it("refuses a caller without an actor, and a non-admin even for themselves", async () => {
    const regular = await newSignedInUser(h);
    expect(await refused(regular.user.id, { actor: undefined })).toEqual(failed(status.UNAUTHENTICATED));
    expect(await refused(regular.user.id, { actor: regular.actor })).toEqual(
      failed(status.PERMISSION_DENIED),
    );
  });

  it("answers NOT_FOUND User for a missing user", async () => {
    expect(await failure(create({ userId: 9_000_000_000_000 }))).toEqual(
      failed(status.NOT_FOUND, { resource: "User" }),
    );
  });
});

describe("a created token", () => {
  it("comes back once with its glpat- secret, and authenticates", async () => {
    const user = await createUser(h);
    const expiresAt = utcDate(10);
    const created = await create({
      userId: user.id,
      name: "ci",
      description: "for CI",
      scopes: ["read_api", "api"],
      expiresAt,
    });
    expect(created.secret).toMatch(/^glpat-[A-Za-z0-9_-]{32}$/);
    expect(created.token).toEqual({
      id: expect.any(Number),
      userId: user.id,
      name: "ci",
      description: "for CI",
      scopes: ["read_api", "api"],
      expiresAt,
      revoked: false,
      active: true,
      createdAt: expect.any(Date),
      lastUsedAt: undefined,
      impersonation: false,
    });
    const { actor } = await h.rpc.authenticate({ token: created.secret });
    expect(actor).toMatchObject({ userId: user.id, tokenId: created.token!.id, scopes: ["read_api", "api"] });
  });

  it("is never shown again: List and Get leave the secret out, the table holds only a digest", async () => {
    const user = await createUser(h);
    const { token, secret } = await create({ userId: user.id });
    const got = await h.rpc.getPersonalAccessToken({ actor: h.admin, id: token!.id });
    const listed = await h.rpc.listPersonalAccessTokens({ actor: h.admin, userId: user.id });
    expect(got).toEqual(token);
    expect(listed.tokens).toEqual([token]);
    const body = secret.slice("glpat-".length);
    expect(JSON.stringify(auth.PersonalAccessToken.toJSON(got))).not.toContain(body);
    expect(JSON.stringify(auth.ListPersonalAccessTokensResponse.toJSON(listed))).not.toContain(body);

    const { rows } = await h.db.query<{ token_digest: string; row: string }>(
      "SELECT token_digest, row_to_json(t)::text AS row FROM auth.personal_access_tokens t WHERE id = $1",
      [token!.id],
    );
    expect(rows[0]!.token_digest).not.toBe(secret);
    expect(rows[0]!.row).not.toContain(body);
  });

  it("gets a new secret every time", async () => {
    const user = await createUser(h);
    const secrets = await Promise.all([1, 2, 3].map(() => create({ userId: user.id }).then((c) => c.secret)));
    expect(new Set(secrets).size).toBe(3);
  });

  it("keeps each scope once", async () => {
    const user = await createUser(h);
    const { token } = await create({ userId: user.id, scopes: ["api", "read_user", "api"] });
    expect(token!.scopes).toEqual(["api", "read_user"]);
  });
});

describe("name and scopes", () => {
  let user: auth.User;
  beforeAll(async () => {
    user = await createUser(h);
  });

  it("refuses a missing or blank name", async () => {
    expect(await refused(user.id, { name: "" })).toEqual(badParameter("name is missing"));
    expect(await refused(user.id, { name: "   " })).toEqual(badParameter("name is missing"));
  });

  it("refuses a name or description over 255 characters", async () => {
    expect(await refused(user.id, { name: "n".repeat(256) })).toEqual(
      invalid({ name: ["is too long (maximum is 255 characters)"] }),
    );
    expect(await refused(user.id, { description: "d".repeat(256) })).toEqual(
      invalid({ description: ["is too long (maximum is 255 characters)"] }),
    );
  });

  it("refuses missing scopes", async () => {
    expect(await refused(user.id, { scopes: [] })).toEqual(badParameter("scopes is missing"));
  });

  it.each([[["api", "nope"]], [["openid"]], [["API"]], [[""]]])("refuses the scopes %j", async (scopes) => {
    expect(await refused(user.id, { scopes })).toEqual(badParameter("scopes does not have a valid value"));
  });

  it.each(["sudo", "admin_mode"])("refuses the admin scope %s for a non-admin", async (scope) => {
    expect(await refused(user.id, { scopes: ["api", scope] })).toEqual(
      invalid({ scopes: ["can only contain available scopes"] }),
    );
  });

  it("grants sudo to an admin's token", async () => {
    const admin = await createUser(h, { admin: true });
    const { token } = await create({ userId: admin.id, scopes: ["api", "sudo"] });
    expect(token!.scopes).toEqual(["api", "sudo"]);
  });
});

describe("expires_at", () => {
  let user: auth.User;
  beforeAll(async () => {
    user = await createUser(h);
  });

  it("defaults to 365 days from today", async () => {
    const { token } = await create({ userId: user.id, expiresAt: "" });
    expect(token!.expiresAt).toBe(utcDate(365));
  });

  it("accepts tomorrow and the 365th day", async () => {
    expect((await create({ userId: user.id, expiresAt: utcDate(1) })).token!.expiresAt).toBe(utcDate(1));
    expect((await create({ userId: user.id, expiresAt: utcDate(365) })).token!.expiresAt).toBe(utcDate(365));
  });

  it.each([
    ["yesterday", -1],
    ["today", 0],
  ])("refuses %s: it must be in the future", async (_, days) => {
    expect(await refused(user.id, { expiresAt: utcDate(days) })).toEqual(
      invalid({ expires_at: ["must be in the future"] }),
    );
  });

  it("refuses more than 365 days", async () => {
    expect(await refused(user.id, { expiresAt: utcDate(366) })).toEqual(
      invalid({ expires_at: ["must expire within 365 days"] }),
    );
    expect(await refused(user.id, { expiresAt: "9999-12-31" })).toEqual(
      invalid({ expires_at: ["must expire within 365 days"] }),
    );
  });

  // Days that do not exist must be refused as invalid, not passed to PostgreSQL (an INTERNAL error).
  const nextYear = Number(utcDate(0).slice(0, 4)) + 1;
  it.each([
    "not a date",
    "2027-1-5",
    `${nextYear}-13-01`,
    `${nextYear}-00-10`,
    `${nextYear}-02-30`,
    `${nextYear}-04-31`,
    `${utcDate(10)}T00:00:00Z`,
    ` ${utcDate(10)}`,
  ])("refuses %j as invalid", async (expiresAt) => {
    expect(await refused(user.id, { expiresAt })).toEqual(badParameter("expires_at is invalid"));
  });
});
