import { auth } from "@canopy/protos";
import {
  failed,
  failure,
  newSignedInUser,
  startHarness,
  status,
  unique,
  type Harness,
  type SignedIn,
} from "./support";

// Reading and revoking personal access tokens: GitLab's /personal_access_tokens. Non-admins see and
// revoke their own; someone else's token is 401 to read (as if missing) and 400 to revoke.
let h: Harness;
let alice: SignedIn;
let bob: SignedIn;
beforeAll(async () => {
  h = await startHarness();
  [alice, bob] = await Promise.all([newSignedInUser(h), newSignedInUser(h)]);
});
afterAll(() => h.stop());

const MISSING_ID = 9_000_000_000_000;
const ids = (tokens: auth.PersonalAccessToken[]) => tokens.map((t) => t.id);

/** Another token for `owner`, made by root. */
const extraToken = async (owner: SignedIn, name = unique("extra-")) =>
  (
    await h.rpc.createPersonalAccessToken({
      actor: h.admin,
      userId: owner.user.id,
      name,
      scopes: ["read_api"],
    })
  ).token!;

describe("ListPersonalAccessTokens", () => {
  it("shows a non-admin their own tokens only, oldest first", async () => {
    const user = await newSignedInUser(h);
    const second = await extraToken(user);
    const own = await h.rpc.listPersonalAccessTokens({ actor: user.actor });
    expect(ids(own.tokens)).toEqual([user.token.id, second.id]);
    expect(own.page).toEqual({ page: 1, perPage: 20, total: 2, totalCapped: false, nextCursor: "" });
    expect(await h.rpc.listPersonalAccessTokens({ actor: user.actor, userId: user.user.id })).toEqual(own);
  });

  it("is UNAUTHENTICATED for a non-admin asking for someone else's tokens", async () => {
    expect(
      await failure(h.rpc.listPersonalAccessTokens({ actor: alice.actor, userId: bob.user.id })),
    ).toEqual(failed(status.UNAUTHENTICATED));
  });

  it("is UNAUTHENTICATED without an actor", async () => {
    expect(await failure(h.rpc.listPersonalAccessTokens({}))).toEqual(failed(status.UNAUTHENTICATED));
  });

  it("shows an admin everybody's tokens, or one user's", async () => {
    const tag = unique("shared-");
    const [a, b] = await Promise.all([extraToken(alice, `${tag}-a`), extraToken(bob, `${tag}-b`)]);
    const all = await h.rpc.listPersonalAccessTokens({ actor: h.admin, search: tag });
    expect(ids(all.tokens)).toEqual(ids([a, b].sort((x, y) => x.id - y.id)));
    const bobs = await h.rpc.listPersonalAccessTokens({ actor: h.admin, userId: bob.user.id });
    expect(bobs.tokens.every((t) => t.userId === bob.user.id)).toBe(true);
    expect(ids(bobs.tokens)).toContain(b.id);
  });

  it("filters by state: active, or inactive (revoked or expired)", async () => {
    const user = await newSignedInUser(h);
    const revoked = await extraToken(user);
    const expired = await extraToken(user);
    await h.rpc.revokePersonalAccessToken({ actor: user.actor, id: revoked.id });
    await h.db.query("UPDATE auth.personal_access_tokens SET expires_at = current_date - 1 WHERE id = $1", [
      expired.id,
    ]);
    const list = (request: Partial<auth.ListPersonalAccessTokensRequest>) =>
      h.rpc.listPersonalAccessTokens({ actor: user.actor, ...request }).then((r) => r.tokens);

    const active = await list({ state: "active" });
    expect(ids(active)).toEqual([user.token.id]);
    expect(active[0]).toMatchObject({ active: true, revoked: false });
    const inactive = await list({ state: "inactive" });
    expect(ids(inactive)).toEqual([revoked.id, expired.id]);
    expect(inactive.map((t) => [t.active, t.revoked])).toEqual([
      [false, true],
      [false, false],
    ]);
    expect(ids(await list({ revoked: true }))).toEqual([revoked.id]);
    expect(ids(await list({ revoked: false }))).toEqual([user.token.id, expired.id]);
    expect(ids(await list({}))).toEqual([user.token.id, revoked.id, expired.id]);
  });

  it("searches token names literally", async () => {
    const user = await newSignedInUser(h);
    const match = await extraToken(user, "deploy_100%");
    await extraToken(user, "deployx100x");
    const { tokens } = await h.rpc.listPersonalAccessTokens({ actor: user.actor, search: "_100%" });
    expect(ids(tokens)).toEqual([match.id]);
  });
});

describe("GetPersonalAccessToken", () => {
  it("gives a user their own token and an admin anybody's", async () => {
    const mine = await h.rpc.getPersonalAccessToken({ actor: alice.actor, id: alice.token.id });
    expect(mine).toMatchObject({ id: alice.token.id, userId: alice.user.id, name: alice.token.name });
    expect(await h.rpc.getPersonalAccessToken({ actor: h.admin, id: alice.token.id })).toEqual(mine);
  });

  it("is UNAUTHENTICATED for someone else's token and for a missing one, to a non-admin", async () => {
    expect(await failure(h.rpc.getPersonalAccessToken({ actor: alice.actor, id: bob.token.id }))).toEqual(
      failed(status.UNAUTHENTICATED),
    );
    expect(await failure(h.rpc.getPersonalAccessToken({ actor: alice.actor, id: MISSING_ID }))).toEqual(
      failed(status.UNAUTHENTICATED),
    );
  });

  it("is NOT_FOUND for a missing token, to an admin", async () => {
    expect(await failure(h.rpc.getPersonalAccessToken({ actor: h.admin, id: MISSING_ID }))).toEqual(
      failed(status.NOT_FOUND),
    );
  });

  it("is UNAUTHENTICATED without an actor", async () => {
    expect(await failure(h.rpc.getPersonalAccessToken({ id: alice.token.id }))).toEqual(
      failed(status.UNAUTHENTICATED),
    );
  });
});

describe("RevokePersonalAccessToken", () => {
  it("lets a user revoke their own token, which then authenticates as revoked", async () => {
    const user = await newSignedInUser(h);
    expect(await h.rpc.revokePersonalAccessToken({ actor: user.actor, id: user.token.id })).toEqual({});
    expect((await h.rpc.authenticate({ token: user.secret })).refusal).toBe(auth.Refusal.REFUSAL_REVOKED);
    expect(await h.rpc.getPersonalAccessToken({ actor: h.admin, id: user.token.id })).toMatchObject({
      revoked: true,
      active: false,
    });
  });

  it("answers a second revocation of the same token with success", async () => {
    const user = await newSignedInUser(h);
    const token = await extraToken(user);
    await h.rpc.revokePersonalAccessToken({ actor: user.actor, id: token.id });
    expect(await h.rpc.revokePersonalAccessToken({ actor: user.actor, id: token.id })).toEqual({});
  });

  it("is FAILED_PRECONDITION for someone else's token, which keeps working", async () => {
    expect(await failure(h.rpc.revokePersonalAccessToken({ actor: alice.actor, id: bob.token.id }))).toEqual(
      failed(status.FAILED_PRECONDITION),
    );
    expect((await h.rpc.authenticate({ token: bob.secret })).refusal).toBe(auth.Refusal.REFUSAL_UNSPECIFIED);
  });

  it("is NOT_FOUND for a missing token", async () => {
    expect(await failure(h.rpc.revokePersonalAccessToken({ actor: alice.actor, id: MISSING_ID }))).toEqual(
      failed(status.NOT_FOUND),
    );
    expect(await failure(h.rpc.revokePersonalAccessToken({ actor: h.admin, id: MISSING_ID }))).toEqual(
      failed(status.NOT_FOUND),
    );
  });

  it("is UNAUTHENTICATED without an actor", async () => {
    expect(await failure(h.rpc.revokePersonalAccessToken({ id: bob.token.id }))).toEqual(
      failed(status.UNAUTHENTICATED),
    );
  });

  it("lets an admin revoke anybody's token", async () => {
    const user = await newSignedInUser(h);
    await h.rpc.revokePersonalAccessToken({ actor: h.admin, id: user.token.id });
    expect((await h.rpc.authenticate({ token: user.secret })).refusal).toBe(auth.Refusal.REFUSAL_REVOKED);
  });
});
