import type { auth } from "@canopy/protos";
import {
  countUsersNamed,
  createUser,
  failed,
  failure,
  newUserAttributes,
  startHarness,
  status,
  unique,
  type Harness,
} from "./support";

// GitLab's model validations and uniqueness rules for users, with its messages. Every refused call
// must leave the table as it was.
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

const USERNAME_FORMAT =
  "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.";
const TOO_LONG = "is too long (maximum is 255 characters)";

/** Tries to create a user with these attribute changes; expects a failure and no new row. */
async function refusedCreate(overrides: auth.UserAttributes) {
  const attributes = newUserAttributes(overrides);
  const probe = {
    username: attributes.username || unique("probe_"),
    email: attributes.email || `${unique()}@x.test`,
  };
  const before = await countUsersNamed(h.db, probe.username, probe.email);
  const result = await failure(h.rpc.createUser({ actor: h.admin, attributes }));
  expect(await countUsersNamed(h.db, probe.username, probe.email)).toBe(before);
  return result;
}

const invalid = (fieldErrors: Record<string, string[]>) => failed(status.INVALID_ARGUMENT, { fieldErrors });

describe("CreateUser validation", () => {
  it("refuses blank username, email and name, naming each", async () => {
    expect(await refusedCreate({ username: "", email: "", name: "" })).toEqual(
      invalid({ username: ["can't be blank"], email: ["can't be blank"], name: ["can't be blank"] }),
    );
    expect(await refusedCreate({ name: "   " })).toEqual(invalid({ name: ["can't be blank"] }));
  });

  it("refuses missing username, email and name", async () => {
    const result = await failure(
      h.rpc.createUser({ actor: h.admin, attributes: { password: "long enough" } }),
    );
    expect(result).toEqual(
      invalid({ username: ["can't be blank"], email: ["can't be blank"], name: ["can't be blank"] }),
    );
  });

  it.each([
    "-starts-with-dash",
    "ends.with.dot.",
    "has space",
    "repo.git",
    "feed.atom",
    "ünïcode",
    "a/b",
    "semi;colon",
  ])("refuses the username %j with GitLab's format message", async (username) => {
    expect(await refusedCreate({ username })).toEqual(invalid({ username: [USERNAME_FORMAT] }));
  });

  it("refuses reserved usernames", async () => {
    expect(await refusedCreate({ username: "Admin" })).toEqual(
      invalid({ username: ["Admin is a reserved name"] }),
    );
  });

  it.each(["no-at-sign", "two@@example.com", "spaces in@example.com", "nodot@localhost"])(
    "refuses the email %j",
    async (email) => {
      expect(await refusedCreate({ email })).toEqual(invalid({ email: ["is invalid"] }));
    },
  );

  it("refuses fields over their length limits", async () => {
    const long = (n: number) => "a".repeat(n);
    expect(await refusedCreate({ username: long(256) })).toEqual(invalid({ username: [TOO_LONG] }));
    expect(await refusedCreate({ name: long(256) })).toEqual(invalid({ name: [TOO_LONG] }));
    expect(await refusedCreate({ email: `${long(250)}@example.com` })).toEqual(
      invalid({ email: ["is invalid"] }),
    );
    expect(await refusedCreate({ bio: long(256) })).toEqual(invalid({ bio: [TOO_LONG] }));
    expect(await refusedCreate({ jobTitle: long(256) })).toEqual(invalid({ job_title: [TOO_LONG] }));
    expect(await refusedCreate({ note: long(1001) })).toEqual(
      invalid({ note: ["is too long (maximum is 1000 characters)"] }),
    );
  });

  it("accepts fields exactly at their limits", async () => {
    const user = await createUser(h, { name: "n".repeat(255), bio: "b".repeat(255), note: "x".repeat(1000) });
    expect(user.name).toHaveLength(255);
  });

  it("refuses short and overlong passwords", async () => {
    expect(await refusedCreate({ password: "1234567" })).toEqual(
      invalid({ password: ["is too short (minimum is 8 characters)"] }),
    );
    expect(await refusedCreate({ password: "p".repeat(129) })).toEqual(
      invalid({ password: ["is too long (maximum is 128 characters)"] }),
    );
  });

  it("refuses null bytes instead of failing in the database", async () => {
    expect(await refusedCreate({ name: "nul\u0000byte" })).toEqual(
      invalid({ name: ["cannot contain null bytes"] }),
    );
  });

  it("reports every invalid field at once", async () => {
    expect(await refusedCreate({ username: "-x", email: "nope", password: "short" })).toEqual(
      invalid({
        username: [USERNAME_FORMAT],
        email: ["is invalid"],
        password: ["is too short (minimum is 8 characters)"],
      }),
    );
  });

  it.each(["Zoë 山田", "Łukasz Żółć", "محمد", "🌲 Canopy", 'O\'Brien "Bob" <b>'])(
    "accepts the name %j as given",
    async (name) => {
      const user = await createUser(h, { name });
      expect(user.name).toBe(name);
      expect((await h.rpc.getUser({ actor: h.admin, id: user.id })).name).toBe(name);
    },
  );
});

describe("UpdateUser validation", () => {
  it("refuses blank and invalid values and changes nothing", async () => {
    const user = await createUser(h);
    const update = (attributes: auth.UserAttributes) =>
      failure(h.rpc.updateUser({ actor: h.admin, id: user.id, attributes }));
    expect(await update({ name: "" })).toEqual(invalid({ name: ["can't be blank"] }));
    expect(await update({ username: "bad name" })).toEqual(invalid({ username: [USERNAME_FORMAT] }));
    expect(await update({ email: "nope" })).toEqual(invalid({ email: ["is invalid"] }));
    expect(await update({ password: "short" })).toEqual(
      invalid({ password: ["is too short (minimum is 8 characters)"] }),
    );
    expect(await h.rpc.getUser({ actor: h.admin, id: user.id })).toEqual(user);
  });

  it("leaves attributes that are not sent as they are", async () => {
    const user = await createUser(h, { bio: "kept" });
    const updated = await h.rpc.updateUser({
      actor: h.admin,
      id: user.id,
      attributes: { location: "Lisbon" },
    });
    expect(updated).toEqual({ ...user, location: "Lisbon" });
  });
});

describe("uniqueness of email and username", () => {
  let taken: auth.User;
  beforeAll(async () => {
    taken = await createUser(h);
  });

  const conflict = (publicMessage: string) => failed(status.ALREADY_EXISTS, { publicMessage });

  it("refuses a taken email, in any letter case", async () => {
    expect(await refusedCreate({ email: taken.email.toUpperCase() })).toEqual(
      conflict("Email has already been taken"),
    );
  });

  it("refuses a taken username, in any letter case", async () => {
    expect(await refusedCreate({ username: taken.username.toUpperCase() })).toEqual(
      conflict("Username has already been taken"),
    );
  });

  it("reports the email first when both are taken", async () => {
    expect(await refusedCreate({ username: taken.username, email: taken.email })).toEqual(
      conflict("Email has already been taken"),
    );
  });

  it("reports the email first when they belong to two different users", async () => {
    const other = await createUser(h);
    expect(await refusedCreate({ username: other.username, email: taken.email })).toEqual(
      conflict("Email has already been taken"),
    );
  });

  it("validates before checking uniqueness", async () => {
    expect(await refusedCreate({ username: taken.username, password: "short" })).toEqual(
      invalid({ password: ["is too short (minimum is 8 characters)"] }),
    );
  });

  it("refuses an update to another user's email or username and changes nothing", async () => {
    const user = await createUser(h);
    const update = (attributes: auth.UserAttributes) =>
      failure(h.rpc.updateUser({ actor: h.admin, id: user.id, attributes }));
    expect(await update({ email: taken.email.toUpperCase() })).toEqual(
      conflict("Email has already been taken"),
    );
    expect(await update({ username: taken.username.toUpperCase() })).toEqual(
      conflict("Username has already been taken"),
    );
    expect(await h.rpc.getUser({ actor: h.admin, id: user.id })).toEqual(user);
  });

  it("lets a user keep, or re-case, their own username and email", async () => {
    const user = await createUser(h);
    const recased = { username: user.username.toUpperCase(), email: user.email.toUpperCase() };
    const updated = await h.rpc.updateUser({ actor: h.admin, id: user.id, attributes: recased });
    expect(updated).toMatchObject(recased);
  });

  it("lets exactly one of two simultaneous identical creations through", async () => {
    const attributes = newUserAttributes();
    const results = await Promise.allSettled(
      [0, 1, 2].map(() => h.rpc.createUser({ actor: h.admin, attributes })),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    for (const r of refused) {
      expect(await failure(Promise.reject(r.reason))).toEqual(conflict("Email has already been taken"));
    }
    expect(await countUsersNamed(h.db, attributes.username!, attributes.email!)).toBe(1);
  });
});
