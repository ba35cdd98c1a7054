import { AUTH_EVENTS, auth, type events } from "@canopy/protos";
import { byUser, startEventReader, type EventReader } from "./event-support";
import {
  createUser,
  newUserAttributes,
  startHarness,
  unique,
  type Harness,
  changeUserState,
  UserStateAction,
} from "./support";

// UserCreated and UserUpdated carry the user as committed, for services that keep a projection of
// users (the groups service) and never call auth. A write that changes nothing in the snapshot
// records no UserUpdated.
let h: Harness;
let reader: EventReader;

beforeAll(async () => {
  h = await startHarness();
  reader = await startEventReader(h.config.CANOPY_NATS_URL, h.service.stream);
});
afterAll(async () => {
  await reader.stop();
  await h.stop();
});

/** The snapshot of the row as stored now, for comparing with what an event carried. */
async function storedSnapshot(id: number): Promise<events.UserSnapshot> {
  const { rows } = await h.db.query<events.UserSnapshot>(
    `SELECT id AS "userId", username, name, state, admin, external, can_create_group AS "canCreateGroup",
            '' AS "avatarUrl", email, coalesce(public_email, '') AS "publicEmail",
            coalesce((SELECT json_agg(json_build_object('provider', provider, 'externUid', extern_uid) ORDER BY provider)
                        FROM auth.identities WHERE user_id = users.id), '[]') AS identities
       FROM auth.users WHERE id = $1`,
    [id],
  );
  return rows[0]!;
}

const update = (id: number, attributes: auth.UserAttributes) =>
  h.rpc.updateUser({ actor: h.admin, id, attributes });

/** The UserUpdated snapshots of `userId` received so far, oldest first. */
const updatesOf = (userId: number) =>
  reader.payloadsOf(AUTH_EVENTS.userUpdated, byUser(userId)).map((p) => p.user);

describe("UserCreated", () => {
  it("carries the snapshot of the created user", async () => {
    const attributes = newUserAttributes({ name: "Grace Hopper", external: true, canCreateGroup: false });
    const user = await h.rpc.createUser({ actor: h.admin, attributes });
    const { payload } = await reader.eventOf(AUTH_EVENTS.userCreated, byUser(user.id));
    expect(payload.user).toEqual({
      userId: user.id,
      username: attributes.username,
      name: "Grace Hopper",
      state: "active",
      admin: false,
      external: true,
      canCreateGroup: false,
      avatarUrl: "",
      email: attributes.email,
      identities: [],
      publicEmail: "",
    });
    expect(payload.user).toEqual(await storedSnapshot(user.id));
  });

  it("carries admin: true for an administrator created by one", async () => {
    const user = await createUser(h, { admin: true });
    const { payload } = await reader.eventOf(AUTH_EVENTS.userCreated, byUser(user.id));
    expect(payload.user).toMatchObject({
      userId: user.id,
      admin: true,
      external: false,
      canCreateGroup: true,
    });
  });
});

describe("UserUpdated", () => {
  it.each<[string, (username: string) => auth.UserAttributes, Partial<events.UserSnapshot>]>([
    ["username", (u) => ({ username: `${u}_new` }), {}],
    ["name", () => ({ name: "Renamed Person" }), { name: "Renamed Person" }],
    ["admin", () => ({ admin: true }), { admin: true }],
    ["external", () => ({ external: true }), { external: true }],
    ["can_create_group", () => ({ canCreateGroup: false }), { canCreateGroup: false }],
    ["email", (u) => ({ email: `${u}@example.org` }), {}],
    ["public_email", () => ({ publicEmail: "shown@example.org" }), { publicEmail: "shown@example.org" }],
  ])("is recorded with the committed snapshot when %s changes", async (_field, change, expected) => {
    const user = await createUser(h);
    const attributes = change(user.username);
    await update(user.id, attributes);
    const { payload } = await reader.eventOf(AUTH_EVENTS.userUpdated, byUser(user.id));
    const stored = await storedSnapshot(user.id);
    expect(stored).toMatchObject({ ...expected, username: attributes.username ?? user.username });
    expect(payload).toEqual({ userId: user.id, username: stored.username, user: stored });
  });

  it("carries every field of a combined change, and the state the user is in", async () => {
    const user = await createUser(h);
    await changeUserState(h.service, h.admin, user.id, UserStateAction.USER_STATE_ACTION_BLOCK);
    const username = unique("renamed_");
    await update(user.id, { username, name: "Both Changed", external: true, bio: "and a bio" });
    // The block recorded a UserUpdated of its own first: this is the one of the rename.
    const { payload } = await reader.eventOf(
      AUTH_EVENTS.userUpdated,
      (p) => p.userId === user.id && p.username === username,
    );
    expect(payload.user).toEqual({
      userId: user.id,
      username,
      name: "Both Changed",
      state: "blocked",
      admin: false,
      external: true,
      canCreateGroup: true,
      avatarUrl: "",
      email: user.email,
      identities: [],
      publicEmail: "",
    });
  });

  it("is not recorded for a write that changes nothing in the snapshot", async () => {
    const user = await createUser(h);
    // Password, profile fields and values equal to the stored ones: none is in the snapshot.
    await update(user.id, { password: "another-passw0rd", email: user.email });
    await update(user.id, { bio: "new bio", location: "Berlin", note: "admin note", projectsLimit: 5 });
    await update(user.id, { name: user.name, admin: false, external: false, canCreateGroup: true });
    await update(user.id, {});
    // Then a real change: the relay publishes this user's events in order, so once it has arrived,
    // any event of the writes above would have too.
    await update(user.id, { name: "The Only Change" });
    await reader.eventOf(
      AUTH_EVENTS.userUpdated,
      (p) => p.userId === user.id && p.user?.name === "The Only Change",
    );
    expect(updatesOf(user.id)).toEqual([await storedSnapshot(user.id)]);
    // The writes did happen.
    const stored = await h.rpc.getUser({ actor: h.admin, id: user.id });
    expect(stored).toMatchObject({ bio: "new bio", location: "Berlin", projectsLimit: 5 });
  });

  it("is not recorded for an update refused as a conflict", async () => {
    const [user, other] = await Promise.all([createUser(h), createUser(h)]);
    await expect(update(user.id, { username: other.username, name: "Never Stored" })).rejects.toThrow(
      "Username has already been taken",
    );
    await update(user.id, { name: "Marker" });
    await reader.eventOf(AUTH_EVENTS.userUpdated, (p) => p.userId === user.id && p.user?.name === "Marker");
    expect(updatesOf(user.id).map((s) => s?.name)).toEqual(["Marker"]);
  });

  it("is recorded, with the snapshot, when two-factor authentication is turned off by an admin", async () => {
    const user = await createUser(h);
    // Enrolment through the API needs a TOTP code; the flag alone is what the admin call checks.
    await h.db.query("UPDATE auth.users SET two_factor_enabled = true WHERE id = $1", [user.id]);
    await h.rpc.disableTwoFactor({ actor: h.admin, userId: user.id });
    const { payload } = await reader.eventOf(AUTH_EVENTS.userUpdated, byUser(user.id));
    expect(payload.user).toEqual(await storedSnapshot(user.id));
  });

  it("carries the user's identities, and is recorded when one is added, changed or removed", async () => {
    const user = await createUser(h);
    const dn = `uid=${user.username},ou=people,dc=example,dc=org`;
    await update(user.id, { provider: "ldapmain", externUid: dn.toUpperCase() });
    const added = await reader.eventOf(
      AUTH_EVENTS.userUpdated,
      (p) => p.userId === user.id && (p.user?.identities.length ?? 0) > 0,
    );
    expect(added.payload.user!.identities).toEqual([{ provider: "ldapmain", externUid: dn }]);
    expect(added.payload.user).toEqual(await storedSnapshot(user.id));
    await h.rpc.deleteUserIdentity({ actor: h.admin, id: user.id, provider: "ldapmain" });
    await reader.eventOf(
      AUTH_EVENTS.userUpdated,
      (p) => p.userId === user.id && p.user?.identities.length === 0,
    );
  });
});
