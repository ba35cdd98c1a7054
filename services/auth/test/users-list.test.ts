import { auth, type common } from "@canopy/protos";
import {
  createUser,
  newSignedInUser,
  startHarness,
  unique,
  type Harness,
  changeUserState,
  UserStateAction,
} from "./support";

// ListUsers: GitLab's /users filters (search, username, state), offset paging and its default order
// (id, descending). Other files create users at the same time, so every query here is narrowed to
// users this file made, by a tag in their names.
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

const list = (
  request: Omit<Partial<auth.ListUsersRequest>, "page"> & { page?: { page?: number; perPage?: number } },
) => h.rpc.listUsers({ actor: h.admin, ...request });
const ids = (users: auth.User[]) => users.map((u) => u.id);

/** `count` users whose names carry a new tag; returned newest first, as lists order them. */
async function tagged(count: number) {
  const tag = unique("tag");
  const users: auth.User[] = [];
  for (let i = 0; i < count; i++) users.push(await createUser(h, { name: `Member ${i} of ${tag}` }));
  return { tag, users: users.reverse() };
}

describe("ListUsers filters", () => {
  it("searches username, name and email, case-insensitively, newest first", async () => {
    const { tag, users } = await tagged(3);
    const byName = await list({ search: tag.toUpperCase() });
    expect(ids(byName.users)).toEqual(ids(users));
    expect(byName.page).toEqual({ page: 1, perPage: 20, total: 3, totalCapped: false, nextCursor: "" });

    const one = users[1]!;
    expect(ids((await list({ search: one.username })).users)).toEqual([one.id]);
    expect(ids((await list({ search: one.email.toUpperCase() })).users)).toEqual([one.id]);
  });

  it("lets only admins find a user by private email; others need the full public email", async () => {
    const user = await createUser(h, { publicEmail: `${unique("public")}@example.org` });
    const { actor } = await newSignedInUser(h);
    const found = async (who: common.Actor | undefined, search: string) =>
      ids((await h.rpc.listUsers({ actor: who, search })).users);

    expect(await found(h.admin, user.email)).toEqual([user.id]);
    expect(await found(actor, user.email)).toEqual([]);
    expect(await found(undefined, user.email.split("@")[0]!.slice(0, -2) + "@")).toEqual([]);
    expect(await found(actor, user.publicEmail.toUpperCase())).toEqual([user.id]);
    expect(await found(actor, user.publicEmail.slice(0, -4))).toEqual([]);
  });

  it("filters by exact username, case-insensitively, not by prefix", async () => {
    const user = await createUser(h);
    expect(ids((await list({ username: user.username.toUpperCase() })).users)).toEqual([user.id]);
    expect((await list({ username: user.username.slice(0, -1) })).users).toEqual([]);
  });

  it("filters by state", async () => {
    const { tag, users } = await tagged(3);
    await changeUserState(h.service, h.admin, users[0]!.id, UserStateAction.USER_STATE_ACTION_BLOCK);
    const blocked = await list({ search: tag, state: "blocked" });
    expect(ids(blocked.users)).toEqual([users[0]!.id]);
    expect(blocked.users[0]!.state).toBe(auth.UserState.USER_STATE_BLOCKED);
    expect(ids((await list({ search: tag, state: "active" })).users)).toEqual(ids(users.slice(1)));
    expect(ids((await list({ search: tag })).users)).toEqual(ids(users));
  });

  it("answers an empty page, not an error, when nothing matches", async () => {
    expect(await list({ search: unique("nothing") })).toEqual({
      users: [],
      page: { page: 1, perPage: 20, total: 0, totalCapped: false, nextCursor: "" },
    });
  });

  it("serves anonymous callers too", async () => {
    const user = await createUser(h);
    const { users } = await h.rpc.listUsers({ username: user.username });
    expect(users).toEqual([{ ...user, email: "", confirmedAt: undefined }]);
  });
});

describe("ListUsers paging", () => {
  it("pages with page and perPage, and reports the total", async () => {
    const { tag, users } = await tagged(5);
    const page = (n: number) => list({ search: tag, page: { page: n, perPage: 2 } });
    const pages = await Promise.all([1, 2, 3, 4].map(page));
    expect(pages.map((p) => ids(p.users))).toEqual([
      ids(users.slice(0, 2)),
      ids(users.slice(2, 4)),
      ids(users.slice(4)),
      [],
    ]);
    expect(pages.map((p) => p.page)).toEqual(
      [1, 2, 3, 4].map((n) => ({ page: n, perPage: 2, total: 5, totalCapped: false, nextCursor: "" })),
    );
  });

  it("treats page below 1 as 1, perPage below 1 as 20 and caps perPage at 100", async () => {
    const { tag } = await tagged(1);
    expect((await list({ search: tag, page: { page: -3, perPage: 0 } })).page).toMatchObject({
      page: 1,
      perPage: 20,
    });
    expect((await list({ search: tag, page: { perPage: -5 } })).page).toMatchObject({ page: 1, perPage: 20 });
    expect((await list({ search: tag, page: { perPage: 1000 } })).page).toMatchObject({
      page: 1,
      perPage: 100,
    });
  });

  it("orders all users by id, descending", async () => {
    const { users } = await list({ page: { perPage: 100 } });
    const sorted = [...ids(users)].sort((a, b) => b - a);
    expect(ids(users)).toEqual(sorted);
  });
});

describe("ListUsers search is literal", () => {
  // LIKE wildcards and quotes in a search must match themselves, never act as SQL.
  async function pair(special: string, plain: string) {
    const tag = unique("lit");
    const matching = await createUser(h, { name: `${tag}${special}end` });
    const other = await createUser(h, { name: `${tag}${plain}end` });
    return { tag, matching, other };
  }

  it.each([
    ["%", "x"],
    ["_", "x"],
    ["\\", "x"],
    ["'; DROP TABLE users;--", "x; DROP TABLE users;--"],
  ])("matches %j only literally", async (special, plain) => {
    const { tag, matching } = await pair(special, plain);
    const found = await list({ search: `${tag}${special}` });
    expect(ids(found.users)).toEqual([matching.id]);
  });

  it("finds nothing, and breaks nothing, for bare wildcards and SQL", async () => {
    for (const search of [
      "%%%%%%%%%%%%%%%%%%",
      "_______________________",
      "'; DROP TABLE users;--",
      "\\' OR 1=1 --",
    ]) {
      const { users } = await list({ search, page: { perPage: 100 } });
      expect(users.every((u) => `${u.username}${u.name}${u.email}`.includes(search))).toBe(true);
    }
    const { rows } = await h.db.query<{ n: number }>(
      "SELECT count(*) AS n FROM auth.users WHERE username = 'root'",
    );
    expect(rows[0]!.n).toBe(1);
  });

  it("stores and finds a name that is itself an injection attempt", async () => {
    const name = `Robert'); DROP TABLE users;-- ${unique("bobby")}`;
    const user = await createUser(h, { name });
    expect(user.name).toBe(name);
    expect(ids((await list({ search: name })).users)).toEqual([user.id]);
    expect(ids((await list({ username: `${user.username}' OR '1'='1` })).users)).toEqual([]);
  });

  it("finds names in any script", async () => {
    const tag = unique("uni");
    const user = await createUser(h, { name: `Zoë 山田 ${tag}` });
    expect(ids((await list({ search: `山田 ${tag}` })).users)).toEqual([user.id]);
    expect(ids((await list({ search: `Zoë 山田 ${tag}` })).users)).toEqual([user.id]);
  });
});
