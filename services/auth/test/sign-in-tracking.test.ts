import { oauth } from "@canopy/protos";
import { signIn } from "./support";
import { newUser, PASSWORD, startOAuthHarness, type OAuthHarness } from "./oauth-support";
import { enrolledUser, nextCode } from "./two-factor-support";

// Devise's trackable fields as GitLab records them: each completed web sign-in (the page's password
// form, an LDAP tab, the two-factor code step) moves current_* to last_* and counts one more; the
// password grant records nothing (Gitlab::Auth.find_with_user_password only checks the password).
let h: OAuthHarness;
beforeAll(async () => {
  h = await startOAuthHarness();
});
afterAll(() => h.stop());

const OK = oauth.SignInRefusal.SIGN_IN_REFUSAL_UNSPECIFIED;
const A = "203.0.113.10";
const B = "2001:db8::7";

/** What an administrator sees of the user's sign-ins (GitLab's UserDetailsWithAdmin). */
async function tracked(userId: number) {
  const u = await h.auth.getUser({ actor: h.admin, id: userId });
  return {
    signInCount: u.signInCount,
    currentSignInIp: u.currentSignInIp,
    lastSignInIp: u.lastSignInIp,
    currentSignInAt: u.currentSignInAt,
    lastSignInAt: u.lastSignInAt,
  };
}

const NEVER = {
  signInCount: 0,
  currentSignInIp: "",
  lastSignInIp: "",
  currentSignInAt: undefined,
  lastSignInAt: undefined,
};

describe("web sign-in", () => {
  it("the first sign-in is both current and last; the second moves current to last", async () => {
    const { user } = await newUser(h);
    expect(await tracked(user.id)).toEqual(NEVER);

    const first = await h.oauth.signIn({ login: user.username, password: PASSWORD, clientIp: A });
    expect(first.refusal).toBe(OK);
    const once = await tracked(user.id);
    expect(once).toEqual({
      signInCount: 1,
      currentSignInIp: A,
      lastSignInIp: A,
      currentSignInAt: expect.any(Date),
      lastSignInAt: once.currentSignInAt,
    });
    // The answer is the user as signed in.
    expect(first.user).toMatchObject({
      currentSignInAt: once.currentSignInAt,
      lastSignInAt: once.lastSignInAt,
    });

    const second = await h.oauth.signIn({ login: user.email, password: PASSWORD, clientIp: B });
    expect(second.refusal).toBe(OK);
    const twice = await tracked(user.id);
    expect(twice).toEqual({
      signInCount: 2,
      currentSignInIp: B,
      lastSignInIp: A,
      currentSignInAt: expect.any(Date),
      lastSignInAt: once.currentSignInAt,
    });
    expect(twice.currentSignInAt!.getTime()).toBeGreaterThanOrEqual(once.currentSignInAt!.getTime());
  });

  it("a refused password records nothing", async () => {
    const { user } = await newUser(h);
    await h.oauth.signIn({ login: user.username, password: "wrong", clientIp: A });
    expect(await tracked(user.id)).toEqual(NEVER);
  });

  it("IPv4 through an IPv6 socket is kept as IPv4; what is not an address is not kept, and the sign-in works", async () => {
    const { user } = await newUser(h);
    await h.oauth.signIn({ login: user.username, password: PASSWORD, clientIp: "::ffff:198.51.100.4" });
    expect(await tracked(user.id)).toMatchObject({ currentSignInIp: "198.51.100.4" });
    const forged = await h.oauth.signIn({ login: user.username, password: PASSWORD, clientIp: "x, <y>" });
    expect(forged.refusal).toBe(OK);
    expect(await tracked(user.id)).toMatchObject({
      signInCount: 2,
      currentSignInIp: "",
      lastSignInIp: "198.51.100.4",
    });
  });

  it("two sign-ins at once both count", async () => {
    const { user } = await newUser(h);
    const both = await Promise.all(
      [A, B].map((clientIp) => h.oauth.signIn({ login: user.username, password: PASSWORD, clientIp })),
    );
    expect(both.map((a) => a.refusal)).toEqual([OK, OK]);
    expect((await tracked(user.id)).signInCount).toBe(2);
  });
});

describe("two-factor sign-in", () => {
  it("the password step records nothing; the accepted code records the sign-in with its address", async () => {
    const { user, secret } = await enrolledUser(h);
    await h.oauth.signIn({ login: user.username, password: PASSWORD, clientIp: A });
    expect(await tracked(user.id)).toEqual(NEVER);
    const wrong = await h.auth.verifySignInCode({ userId: user.id, code: "000000", clientIp: A });
    expect(wrong.user).toBeUndefined();
    expect(await tracked(user.id)).toEqual(NEVER);
    const ok = await h.auth.verifySignInCode({ userId: user.id, code: nextCode(secret), clientIp: B });
    expect(ok.user).toBeDefined();
    expect(await tracked(user.id)).toMatchObject({ signInCount: 1, currentSignInIp: B, lastSignInIp: B });
  });
});

describe("password grant", () => {
  it("records no sign-in, as GitLab's does not, but a success resets the failure count", async () => {
    const { user } = await newUser(h);
    await h.oauth.signIn({ login: user.username, password: PASSWORD, clientIp: A });
    const before = await tracked(user.id);
    await h.oauth.token({ grantType: "password", username: user.username, password: "wrong" });
    const reply = await h.oauth.token({ grantType: "password", username: user.username, password: PASSWORD });
    expect(reply.error).toBeUndefined();
    const again = await h.oauth.token({ grantType: "password", username: user.email, password: PASSWORD });
    expect(again.error).toBeUndefined();
    expect(await tracked(user.id)).toEqual(before);
    const { rows } = await h.db.query("SELECT failed_attempts FROM users WHERE id = $1", [user.id]);
    expect(rows[0].failed_attempts).toBe(0);
  });
});

describe("who sees what", () => {
  it("times for the user and administrators; addresses and the count for administrators alone", async () => {
    const { user, actor } = await newUser(h);
    const other = await newUser(h);
    await h.oauth.signIn({ login: user.username, password: PASSWORD, clientIp: A });

    const byAdmin = await h.auth.getUser({ actor: h.admin, id: user.id });
    expect(byAdmin).toMatchObject({ signInCount: 1, currentSignInIp: A, lastSignInIp: A });
    const bySelf = await h.auth.getUser({ actor, id: user.id });
    expect(bySelf).toMatchObject({
      currentSignInAt: byAdmin.currentSignInAt,
      lastSignInAt: byAdmin.lastSignInAt,
      signInCount: 0,
      currentSignInIp: "",
      lastSignInIp: "",
    });
    const byOther = await h.auth.getUser({ actor: other.actor, id: user.id });
    expect(byOther).toMatchObject({
      currentSignInAt: undefined,
      lastSignInAt: undefined,
      signInCount: 0,
      currentSignInIp: "",
      lastSignInIp: "",
    });
    // Not in lists, nor in the token owner's authentication answer (which the gateway caches).
    const listed = await h.auth.listUsers({ actor: h.admin, username: user.username });
    expect(listed.users[0]).toMatchObject({ signInCount: 0, currentSignInIp: "", lastSignInIp: "" });
    const { secret } = await signIn({ rpc: h.auth, admin: h.admin }, user);
    const owner = (await h.auth.authenticate({ token: secret })).user;
    expect(owner).toMatchObject({ id: user.id, signInCount: 0, currentSignInIp: "", lastSignInIp: "" });
  });
});
