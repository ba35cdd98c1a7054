/**
 * GET /user, GET /users, GET /users/:id: GitLab's user entities for each kind of caller, filters
 * and offset pagination headers.
 */
import {
  createUser,
  EXTERNAL_URL,
  expectError,
  expectJsonHeaders,
  ISO_TIME,
  signedInUser,
  startStack,
  UNAUTHORIZED,
  unique,
  type ApiUser,
  type Reply,
  type Stack,
} from "./support";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 30_000);
afterAll(() => stack.stop());

// GitLab's entities (lib/api/entities/user_basic.rb, user.rb, user_public.rb, user_with_admin.rb).
const basic = (u: ApiUser) => ({
  id: u.id,
  username: u.username,
  name: u.name,
  state: "active",
  locked: false,
  avatar_url: null,
  web_url: `${EXTERNAL_URL}/${u.username}`,
});
const profile = (u: ApiUser) => ({
  ...basic(u),
  created_at: ISO_TIME,
  bio: "",
  location: "",
  public_email: null,
  skype: "",
  linkedin: "",
  twitter: "",
  discord: "",
  website_url: "",
  organization: "",
  job_title: "",
  pronouns: null,
  bot: false,
  work_information: null,
  followers: 0,
  following: 0,
  local_time: null,
});
/** A signed-in reader of the profile also gets is_followed (false: Canopy has no follows). */
const readBySignedIn = (u: ApiUser) => ({ ...profile(u), is_followed: false });
const publicOf = (u: ApiUser) => ({
  ...readBySignedIn(u),
  last_sign_in_at: null,
  confirmed_at: ISO_TIME,
  last_activity_on: null,
  email: u.email,
  theme_id: 1,
  color_scheme_id: 1,
  projects_limit: 100000,
  current_sign_in_at: null,
  identities: [],
  can_create_group: true,
  can_create_project: true,
  two_factor_enabled: false,
  external: false,
  private_profile: false,
  commit_email: u.email,
});
const withAdmin = (u: ApiUser, isAdmin = false) => ({
  ...publicOf(u),
  is_admin: isAdmin,
  note: null,
  namespace_id: null,
  created_by: null,
  email_reset_offered_at: null,
  using_license_seat: true,
  // EE's licensed fields, on the default plan (ultimate).
  is_auditor: false,
  provisioned_by_group_id: null,
});

describe("GET /api/v4/user", () => {
  test("a user sees themself as UserPublic", async () => {
    const { user, secret } = await signedInUser(stack);
    const res = await stack.gw.get("/api/v4/user", { token: secret });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(publicOf(user));
    expectJsonHeaders(res);
  });

  test("an admin sees themself as UserWithAdmin", async () => {
    const { user, secret } = await signedInUser(stack, ["api"], { admin: true });
    const res = await stack.gw.get("/api/v4/user", { token: secret });
    expect(res.body).toEqual(withAdmin(user, true));
  });

  test("anonymous is 401", async () => {
    expectError(await stack.gw.get("/api/v4/user"), 401, UNAUTHORIZED);
  });
});

describe("GET /api/v4/users/:id", () => {
  test("a private profile keeps its creation time and follows from all but its user and administrators", async () => {
    const target = await createUser(stack, { private_profile: true });
    const other = await signedInUser(stack);
    const self = await stack.gw.post(`/api/v4/users/${target.id}/personal_access_tokens`, {
      token: stack.rootToken,
      json: { name: "self", scopes: ["read_user"] },
    });
    const path = `/api/v4/users/${target.id}`;
    const { created_at: _created, followers: _f, following: _g, ...hidden } = profile(target);
    expect((await stack.gw.get(path)).body).toEqual(hidden);
    expect((await stack.gw.get(path, { token: other.secret })).body).toEqual(hidden);
    const byThemself = await stack.gw.get(path, { token: (self.body as { token: string }).token });
    expect(byThemself.body).toEqual(readBySignedIn(target));
    expect((await stack.gw.get(path, { token: stack.rootToken })).body).toMatchObject({
      created_at: ISO_TIME,
      followers: 0,
      following: 0,
      is_followed: false,
      private_profile: true,
    });
  });

  test("each caller gets the entity GitLab gives them", async () => {
    const target = await createUser(stack, { note: "internal note", bio: "Bio" });
    const other = await signedInUser(stack);
    const self = await stack.gw.post(`/api/v4/users/${target.id}/personal_access_tokens`, {
      token: stack.rootToken,
      json: { name: "self", scopes: ["read_user"] },
    });
    const selfToken = (self.body as { token: string }).token;
    const path = `/api/v4/users/${target.id}`;

    const anonymous = await stack.gw.get(path);
    expect(anonymous.body).toEqual({ ...profile(target), bio: "Bio" });
    const byOther = await stack.gw.get(path, { token: other.secret });
    expect(byOther.body).toEqual({ ...readBySignedIn(target), bio: "Bio" });
    const byThemself = await stack.gw.get(path, { token: selfToken });
    expect(byThemself.body).toEqual({ ...readBySignedIn(target), bio: "Bio" });
    const byAdmin = await stack.gw.get(path, { token: stack.rootToken });
    // The target's own request above may have recorded today as their last activity already.
    const today = new Date().toISOString().slice(0, 10);
    const activity = (byAdmin.body as { last_activity_on: string | null }).last_activity_on;
    expect([null, today]).toContain(activity);
    // One user, to an administrator: UserDetailsWithAdmin (users-sign-in-details.test.ts fills it).
    expect(byAdmin.body).toEqual({
      ...withAdmin(target),
      bio: "Bio",
      note: "internal note",
      last_activity_on: activity,
      highest_role: 0,
      current_sign_in_ip: null,
      last_sign_in_ip: null,
      sign_in_count: 0,
    });
    for (const res of [anonymous, byOther, byThemself]) {
      expect(res.text).not.toContain(target.email);
      expect(res.text).not.toContain("internal note");
    }
  });

  test("a missing user is 404 User Not Found", async () => {
    expectError(await stack.gw.get("/api/v4/users/999999999"), 404, { message: "404 User Not Found" });
    expectError(await stack.gw.get("/api/v4/users/999999999", { token: stack.rootToken }), 404, {
      message: "404 User Not Found",
    });
  });

  test.each(["abc", "0", "-1", "1.5", "99999999999999999999", "1e3"])(
    "id %s is 400 id is invalid",
    async (id) => {
      expectError(await stack.gw.get(`/api/v4/users/${id}`), 400, { error: "id is invalid" });
    },
  );
});

describe("GET /api/v4/users", () => {
  /** Five users whose names share a marker only they carry. */
  async function fiveUsers() {
    const marker = unique("pg");
    const users: ApiUser[] = [];
    for (let i = 0; i < 5; i++) users.push(await createUser(stack, { name: `${marker} ${i}` }));
    return { marker, users };
  }

  const ids = (res: Reply) => (res.body as { id: number }[]).map((u) => u.id);

  test("search matches username, name or email, case-insensitively; by name for others, newest first for admins", async () => {
    const { marker, users } = await fiveUsers();
    const res = await stack.gw.get(`/api/v4/users?search=${marker.toUpperCase()}`);
    // GitLab's User.search order (names "<marker> 0".."<marker> 4"); admins' id desc.
    expect(ids(res)).toEqual(users.map((u) => u.id));
    const admin = await stack.gw.get(`/api/v4/users?search=${marker}`, { token: stack.rootToken });
    expect(ids(admin)).toEqual(users.map((u) => u.id).reverse());
    const mention = await stack.gw.get(`/api/v4/users?search=@${users[1]!.username}`);
    expect(ids(mention)).toEqual([users[1]!.id]);
    const byEmail = await stack.gw.get(`/api/v4/users?search=${users[2]!.email}`, { token: stack.rootToken });
    expect(ids(byEmail)).toEqual([users[2]!.id]);
  });

  test("anonymous and non-admin callers get UserBasic; admins UserWithAdmin", async () => {
    const { marker, users } = await fiveUsers();
    const other = await signedInUser(stack);
    const expected = users.map(basic);
    expect((await stack.gw.get(`/api/v4/users?search=${marker}`)).body).toEqual(expected);
    expect((await stack.gw.get(`/api/v4/users?search=${marker}`, { token: other.secret })).body).toEqual(
      expected,
    );
    const byAdmin = await stack.gw.get(`/api/v4/users?search=${marker}`, { token: stack.rootToken });
    expect(byAdmin.body).toEqual(users.map((u) => withAdmin(u)).reverse());
  });

  test("username matches exactly, ignoring case", async () => {
    const { users } = await fiveUsers();
    const res = await stack.gw.get(`/api/v4/users?username=${users[1]!.username.toUpperCase()}`);
    expect(ids(res)).toEqual([users[1]!.id]);
    expect(ids(await stack.gw.get(`/api/v4/users?username=${users[1]!.username.slice(0, -1)}`))).toEqual([]);
  });

  test("blocked=true and active=true filter by state", async () => {
    const { marker, users } = await fiveUsers();
    await stack.gw.post(`/api/v4/users/${users[3]!.id}/block`, { token: stack.rootToken });
    const asAdmin = { token: stack.rootToken };
    expect(ids(await stack.gw.get(`/api/v4/users?search=${marker}&blocked=true`, asAdmin))).toEqual([
      users[3]!.id,
    ]);
    // GitLab's UsersFinder hides blocked users from everyone but administrators.
    expect(ids(await stack.gw.get(`/api/v4/users?search=${marker}&blocked=true`))).toEqual([]);
    const active = ids(await stack.gw.get(`/api/v4/users?search=${marker}&active=true`));
    expect(active).toEqual([users[0]!.id, users[1]!.id, users[2]!.id, users[4]!.id]);
  });

  test("pagination headers and Link, built from the external URL with keys sorted", async () => {
    const { marker, users } = await fiveUsers();
    const res = await stack.gw.get(`/api/v4/users?search=${marker}&per_page=2&page=2`);
    expect(ids(res)).toEqual([users[2]!.id, users[3]!.id]);
    const link = (page: number) => `<${EXTERNAL_URL}/api/v4/users?page=${page}&per_page=2&search=${marker}>`;
    expect(headersOf(res)).toEqual({
      "x-total": "5",
      "x-total-pages": "3",
      "x-per-page": "2",
      "x-page": "2",
      "x-next-page": "3",
      "x-prev-page": "1",
      link: `${link(1)}; rel="prev", ${link(3)}; rel="next", ${link(1)}; rel="first", ${link(3)}; rel="last"`,
    });
  });

  test("the first and the last page leave prev / next empty", async () => {
    const { marker } = await fiveUsers();
    const first = await stack.gw.get(`/api/v4/users?search=${marker}&per_page=2`);
    expect(headersOf(first)).toMatchObject({ "x-page": "1", "x-prev-page": "", "x-next-page": "2" });
    expect(first.headers.get("link")).not.toContain('rel="prev"');
    const last = await stack.gw.get(`/api/v4/users?search=${marker}&per_page=2&page=3`);
    expect(headersOf(last)).toMatchObject({ "x-page": "3", "x-prev-page": "2", "x-next-page": "" });
    expect(last.headers.get("link")).not.toContain('rel="next"');
    const past = await stack.gw.get(`/api/v4/users?search=${marker}&per_page=2&page=9`);
    expect({ status: past.status, body: past.body, total: past.headers.get("x-total") }).toEqual({
      status: 200,
      body: [],
      total: "5",
    });
  });

  test("an empty result still reports one page", async () => {
    const res = await stack.gw.get(`/api/v4/users?search=${unique("none")}`);
    expect(res.body).toEqual([]);
    expect(headersOf(res)).toMatchObject({
      "x-total": "0",
      "x-total-pages": "1",
      "x-page": "1",
      "x-next-page": "",
    });
  });

  test("per_page is capped at 100 and page < 1 is page 1", async () => {
    const { marker } = await fiveUsers();
    const capped = await stack.gw.get(`/api/v4/users?search=${marker}&per_page=500`);
    expect(headersOf(capped)).toMatchObject({ "x-per-page": "100", "x-total-pages": "1" });
    expect(capped.headers.get("link")).toContain("per_page=100");
    for (const page of ["0", "-3"]) {
      const res = await stack.gw.get(`/api/v4/users?search=${marker}&per_page=2&page=${page}`);
      expect(headersOf(res)).toMatchObject({ "x-page": "1", "x-prev-page": "", "x-next-page": "2" });
      expect((res.body as unknown[]).length).toBe(2);
    }
    expect(headersOf(await stack.gw.get(`/api/v4/users?search=${marker}&per_page=-1`))).toMatchObject({
      "x-per-page": "20",
    });
  });

  test("malformed pagination and filters are 400", async () => {
    const cases: [string, string][] = [
      ["page=x", "page is invalid"],
      ["per_page=1.5", "per_page is invalid"],
      ["page=99999999999999999999", "page is invalid"],
      ["active=maybe", "active is invalid"],
      ["blocked=2", "blocked is invalid"],
      ["page=x&active=maybe", "page is invalid, active is invalid"],
      [`search=${"s".repeat(300)}`, "search must be at the most 255 characters long"],
    ];
    for (const [query, error] of cases)
      expectError(await stack.gw.get(`/api/v4/users?${query}`), 400, { error });
  });
});

function headersOf(res: Reply) {
  const names = ["x-total", "x-total-pages", "x-per-page", "x-page", "x-next-page", "x-prev-page", "link"];
  return Object.fromEntries(names.filter((n) => res.headers.has(n)).map((n) => [n, res.headers.get(n)]));
}
