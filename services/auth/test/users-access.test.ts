import { auth, type common } from "@canopy/protos";
import {
  createUser,
  failed,
  failure,
  newSignedInUser,
  newUserAttributes,
  startHarness,
  status,
  type Harness,
  type SignedIn,
  changeUserState,
  UserStateAction,
} from "./support";

// Who may read and write users: writes are for administrators only (GitLab's admin API), reads are
// open, but only the user and administrators see private fields such as the email.
let h: Harness;
let regular: SignedIn;
beforeAll(async () => {
  h = await startHarness();
  regular = await newSignedInUser(h);
});
afterAll(() => h.stop());

const MISSING_ID = 9_000_000_000_000;
const anonymous: common.Actor = {
  userId: 0,
  username: "",
  admin: false,
  external: false,
  scopes: [],
  tokenKind: 0,
  tokenId: 0,
  impersonatorId: 0,
};

/** Each write, aimed at a fresh user, with the actor under test. */
const WRITES: Record<string, (actor: common.Actor | undefined, target: auth.User) => Promise<unknown>> = {
  CreateUser: (actor) => h.rpc.createUser({ actor, attributes: newUserAttributes() }),
  UpdateUser: (actor, target) => h.rpc.updateUser({ actor, id: target.id, attributes: { bio: "changed" } }),
  ChangeUserState: (actor, target) =>
    changeUserState(h.service, actor, target.id, UserStateAction.USER_STATE_ACTION_BLOCK),
  DeleteUser: (actor, target) => h.rpc.deleteUser({ actor, id: target.id }),
};
const methods = Object.keys(WRITES);

/** The target as stored, seen by root. */
const stored = (target: auth.User) => h.rpc.getUser({ actor: h.admin, id: target.id });

describe("user writes: permission matrix", () => {
  it.each(methods)("%s without an actor is UNAUTHENTICATED and changes nothing", async (method) => {
    const target = await createUser(h);
    expect(await failure(WRITES[method]!(undefined, target))).toEqual(failed(status.UNAUTHENTICATED));
    expect(await failure(WRITES[method]!(anonymous, target))).toEqual(failed(status.UNAUTHENTICATED));
    expect(await stored(target)).toEqual(target);
  });

  it.each(methods)("%s by a non-admin is PERMISSION_DENIED and changes nothing", async (method) => {
    const target = await createUser(h);
    expect(await failure(WRITES[method]!(regular.actor, target))).toEqual(failed(status.PERMISSION_DENIED));
    expect(await stored(target)).toEqual(target);
  });

  it("a non-admin may not update, block or delete even themselves", async () => {
    const self = await newSignedInUser(h);
    for (const method of ["UpdateUser", "ChangeUserState", "DeleteUser"]) {
      expect(await failure(WRITES[method]!(self.actor, self.user))).toEqual(failed(status.PERMISSION_DENIED));
    }
  });

  it("an admin creates a user with GitLab's defaults, confirmed unless asked otherwise", async () => {
    const attributes = newUserAttributes();
    const user = await h.rpc.createUser({ actor: h.admin, attributes });
    expect(user).toMatchObject({
      id: expect.any(Number),
      username: attributes.username,
      email: attributes.email,
      name: attributes.name,
      state: auth.UserState.USER_STATE_ACTIVE,
      admin: false,
      projectsLimit: 100000,
      canCreateGroup: true,
      external: false,
      privateProfile: false,
    });
    expect(user.createdAt).toBeInstanceOf(Date);
    expect(user.confirmedAt).toBeInstanceOf(Date);
    const unconfirmed = await createUser(h, { skipConfirmation: false });
    expect(unconfirmed.confirmedAt).toBeUndefined();
  });

  it("an admin updates a user", async () => {
    const target = await createUser(h);
    const updated = await h.rpc.updateUser({
      actor: h.admin,
      id: target.id,
      attributes: { bio: "changed", admin: true },
    });
    expect(updated).toEqual({ ...target, bio: "changed", admin: true });
    expect(await stored(target)).toEqual(updated);
  });

  it("an admin blocks and unblocks a user", async () => {
    const target = await createUser(h);
    const block = UserStateAction.USER_STATE_ACTION_BLOCK;
    expect(await changeUserState(h.service, h.admin, target.id, block)).toBe("blocked");
    expect((await stored(target)).state).toBe(auth.UserState.USER_STATE_BLOCKED);
    const unblock = UserStateAction.USER_STATE_ACTION_UNBLOCK;
    expect(await changeUserState(h.service, h.admin, target.id, unblock)).toBe("active");
    expect((await stored(target)).state).toBe(auth.UserState.USER_STATE_ACTIVE);
  });

  it("refuses an unset or unknown action instead of unblocking", async () => {
    const target = await createUser(h);
    await changeUserState(h.service, h.admin, target.id, UserStateAction.USER_STATE_ACTION_BLOCK);
    for (const action of [UserStateAction.USER_STATE_ACTION_UNSPECIFIED, 99]) {
      expect(await failure(changeUserState(h.service, h.admin, target.id, action))).toEqual(
        failed(status.INVALID_ARGUMENT, { publicMessage: "action does not have a valid value" }),
      );
    }
    expect((await stored(target)).state).toBe(auth.UserState.USER_STATE_BLOCKED);
  });

  it("an admin deletes a user, after which the user is not found", async () => {
    const target = await createUser(h);
    expect(await h.rpc.deleteUser({ actor: h.admin, id: target.id })).toEqual({});
    expect(await failure(stored(target))).toEqual(failed(status.NOT_FOUND, { resource: "User" }));
  });

  it.each(["UpdateUser", "ChangeUserState", "DeleteUser"])(
    "%s of a missing user by an admin is NOT_FOUND User",
    async (method) => {
      const missing = { ...regular.user, id: MISSING_ID };
      expect(await failure(WRITES[method]!(h.admin, missing))).toEqual(
        failed(status.NOT_FOUND, { resource: "User" }),
      );
    },
  );

  it("a non-admin asking about a missing user is denied, not told it is missing", async () => {
    const missing = { ...regular.user, id: MISSING_ID };
    expect(await failure(WRITES.DeleteUser!(regular.actor, missing))).toEqual(
      failed(status.PERMISSION_DENIED),
    );
  });
});

describe("GetUser", () => {
  it("finds a user by id and by username, case-insensitively", async () => {
    const user = await createUser(h);
    expect(await h.rpc.getUser({ actor: h.admin, id: user.id })).toEqual(user);
    expect(await h.rpc.getUser({ actor: h.admin, username: user.username })).toEqual(user);
    expect(await h.rpc.getUser({ actor: h.admin, username: user.username.toUpperCase() })).toEqual(user);
  });

  it.each([
    ["a missing id", { id: MISSING_ID }],
    ["a missing username", { username: "nobody_by_this_name_at_all" }],
    ["neither id nor username", {}],
  ])("answers NOT_FOUND User for %s", async (_, request) => {
    expect(await failure(h.rpc.getUser({ actor: h.admin, ...request }))).toEqual(
      failed(status.NOT_FOUND, { resource: "User" }),
    );
  });

  it("shows the email and private fields to the user and to admins only", async () => {
    const target = await newSignedInUser(h, { note: "admin note" });
    const self = await h.rpc.getUser({ actor: target.actor, id: target.user.id });
    const byAdmin = await h.rpc.getUser({ actor: h.admin, id: target.user.id });
    expect(self.email).toBe(target.user.email);
    expect(byAdmin).toEqual(self);
    expect(byAdmin).toMatchObject({ note: "admin note", confirmedAt: expect.any(Date) });

    const hidden = {
      email: "",
      note: "",
      twoFactorEnabled: false,
      lastSignInAt: undefined,
      confirmedAt: undefined,
    };
    expect(await h.rpc.getUser({ actor: regular.actor, id: target.user.id })).toEqual({ ...self, ...hidden });
    expect(await h.rpc.getUser({ id: target.user.id })).toEqual({ ...self, ...hidden });
  });

  it("hides other users' emails in lists too", async () => {
    const target = await createUser(h);
    const seenBy = async (actor: common.Actor) =>
      (await h.rpc.listUsers({ actor, username: target.username })).users.map((u) => u.email);
    expect(await seenBy(regular.actor)).toEqual([""]);
    expect(await seenBy(h.admin)).toEqual([target.email]);
  });
});
