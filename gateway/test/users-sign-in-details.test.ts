/**
 * GitLab's UserDetailsWithAdmin on GET /users/:id for administrators: Devise's trackable fields
 * (recorded by each web sign-in with the browser's address, not by the password grant) and the
 * user's highest role in any group or project. Nobody else sees the addresses or the count.
 */
import { auth } from "@canopy/protos";
import { generateSync } from "otplib";
import { addGroupMember, knownUser, newGroup, newProject } from "./project-members-support";
import { createUser, ISO_TIME, PASSWORD, signedInUser, type ApiUser, type Stack } from "./support";
import { actorFor, Browser, csrfTokenOf, startWebStack } from "./web-support";

// Sign-ins verify argon2 hashes; with other suites running in parallel that adds up.
jest.setTimeout(90_000);

let stack: Stack;
beforeAll(async () => {
  stack = await startWebStack();
}, 30_000);
afterAll(() => stack.stop());

type Body = Record<string, unknown>;
const asAdmin = async (id: number) =>
  (await stack.gw.get(`/api/v4/users/${id}`, { token: stack.rootToken })).body as Body;
const DETAILS = ["highest_role", "current_sign_in_ip", "last_sign_in_ip", "sign_in_count"];

async function signInFrom(user: ApiUser): Promise<Browser> {
  const b = new Browser(stack.gw);
  expect((await b.signIn(user.username)).status).toBe(302);
  return b;
}

describe("sign-in details", () => {
  test("each web sign-in is counted with the browser's address; current moves to last", async () => {
    const user = await createUser(stack);
    expect(await asAdmin(user.id)).toMatchObject({
      sign_in_count: 0,
      current_sign_in_ip: null,
      last_sign_in_ip: null,
      current_sign_in_at: null,
      last_sign_in_at: null,
    });
    const first = await signInFrom(user);
    const once = await asAdmin(user.id);
    expect(once).toMatchObject({
      sign_in_count: 1,
      current_sign_in_ip: first.ip,
      last_sign_in_ip: first.ip,
      current_sign_in_at: ISO_TIME,
    });
    expect(once.last_sign_in_at).toBe(once.current_sign_in_at);
    const second = await signInFrom(user);
    const twice = await asAdmin(user.id);
    expect(twice).toMatchObject({
      sign_in_count: 2,
      current_sign_in_ip: second.ip,
      last_sign_in_ip: first.ip,
      last_sign_in_at: once.current_sign_in_at,
    });
    expect(Date.parse(twice.current_sign_in_at as string)).toBeGreaterThanOrEqual(
      Date.parse(once.current_sign_in_at as string),
    );
  });

  test("the two-factor code step records the sign-in; the password alone does not", async () => {
    const user = await createUser(stack);
    const client = stack.authService.client(auth.AuthServiceService);
    const actor = actorFor(user);
    const { secret } = await client.prepareTwoFactor({ actor });
    await client.enableTwoFactor({ actor, code: generateSync({ secret }), password: PASSWORD });
    const b = new Browser(stack.gw);
    const codePage = await b.signIn(user.username);
    expect(await asAdmin(user.id)).toMatchObject({ sign_in_count: 0, current_sign_in_ip: null });
    const done = await b.post("/users/sign_in", {
      authenticity_token: csrfTokenOf(codePage.text),
      "user[otp_attempt]": generateSync({ secret, epoch: Date.now() / 1000 + 30 }),
    });
    expect(done.status).toBe(302);
    expect(await asAdmin(user.id)).toMatchObject({ sign_in_count: 1, current_sign_in_ip: b.ip });
  });

  test("the password grant records no sign-in (GitLab's only checks the password)", async () => {
    const user = await createUser(stack);
    const b = await signInFrom(user);
    const before = await asAdmin(user.id);
    const res = await stack.gw.post("/oauth/token", {
      form: { grant_type: "password", username: user.username, password: PASSWORD },
      headers: { "X-Forwarded-For": "192.0.2.99" },
    });
    expect(res.status).toBe(200);
    expect(await asAdmin(user.id)).toMatchObject({
      sign_in_count: 1,
      current_sign_in_ip: b.ip,
      current_sign_in_at: before.current_sign_in_at,
    });
  });

  test("only administrators' GET /users/:id shows them; the user sees their sign-in times only", async () => {
    const { user, secret } = await signedInUser(stack);
    const other = await signedInUser(stack);
    const admin = await signedInUser(stack, ["api"], { admin: true });
    await signInFrom(user);
    const byAdmin = await stack.gw.get(`/api/v4/users/${user.id}`, { token: admin.secret });
    expect(Object.keys(byAdmin.body as Body)).toEqual(expect.arrayContaining(DETAILS));
    const self = (await stack.gw.get("/api/v4/user", { token: secret })).body as Body;
    expect(self).toMatchObject({ current_sign_in_at: ISO_TIME, last_sign_in_at: ISO_TIME });
    const answers = [
      await stack.gw.get(`/api/v4/users/${user.id}`),
      await stack.gw.get(`/api/v4/users/${user.id}`, { token: other.secret }),
      await stack.gw.get(`/api/v4/users/${user.id}`, { token: secret }),
      await stack.gw.get("/api/v4/user", { token: secret }),
      // GitLab's GET /user and the list give administrators UserWithAdmin, without these.
      await stack.gw.get("/api/v4/user", { token: admin.secret }),
      await stack.gw.get(`/api/v4/users?username=${user.username}`, { token: admin.secret }),
    ];
    for (const res of answers) {
      expect(res.status).toBe(200);
      for (const key of DETAILS) expect(res.text).not.toContain(`"${key}"`);
      expect(res.text).not.toContain((byAdmin.body as Body).current_sign_in_ip as string);
    }
  });
});

describe("highest_role", () => {
  test("0 without memberships; from a group; from a project; the higher of both", async () => {
    const owner = await knownUser(stack);
    const member = await knownUser(stack);
    const other = await knownUser(stack);
    expect(await asAdmin(member.user.id)).toMatchObject({ highest_role: 0 });

    const group = await newGroup(stack, owner.secret);
    await addGroupMember(stack, owner.secret, group.id, member.user.id, 20);
    expect(await asAdmin(member.user.id)).toMatchObject({ highest_role: 20 });
    // The group's creator is its owner.
    expect(await asAdmin(owner.user.id)).toMatchObject({ highest_role: 50 });

    const project = await newProject(stack, owner.secret);
    const addToProject = async (userId: number, accessLevel: number) => {
      const res = await stack.gw.post(`/api/v4/projects/${project.id}/members`, {
        token: owner.secret,
        json: { user_id: userId, access_level: accessLevel },
      });
      expect(res.status).toBe(201);
    };
    await addToProject(other.user.id, 30);
    expect(await asAdmin(other.user.id)).toMatchObject({ highest_role: 30 });
    // The higher of the two halves, whichever holds it.
    await addToProject(member.user.id, 40);
    expect(await asAdmin(member.user.id)).toMatchObject({ highest_role: 40 });
    await addGroupMember(stack, owner.secret, group.id, other.user.id, 40);
    expect(await asAdmin(other.user.id)).toMatchObject({ highest_role: 40 });
  });

  test("0 for a user who is not active, as GitLab keeps no highest role for them", async () => {
    const owner = await knownUser(stack);
    const member = await knownUser(stack);
    const group = await newGroup(stack, owner.secret);
    await addGroupMember(stack, owner.secret, group.id, member.user.id, 30);
    expect(await asAdmin(member.user.id)).toMatchObject({ highest_role: 30 });
    const blocked = await stack.gw.post(`/api/v4/users/${member.user.id}/block`, { token: stack.rootToken });
    expect(blocked.status).toBe(201);
    expect(await asAdmin(member.user.id)).toMatchObject({ state: "blocked", highest_role: 0 });
  });
});
