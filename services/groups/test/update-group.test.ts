/** PUT /groups/:id as the service answers it: who may, every attribute's rule, renames, events. */
import {
  ANONYMOUS,
  failed,
  failure,
  startHarness,
  status,
  unique,
  type Harness,
  type TestUser,
} from "./support";
import { addMember, invalidWith, updatedEvents } from "./update-support";

let h: Harness;
let owner: TestUser;
beforeAll(async () => {
  h = await startHarness();
  owner = await h.newUser();
});
afterAll(() => h.stop());

const update = (actor: TestUser["actor"], id: number, attributes: object) =>
  h.rpc.updateGroup({ actor, group: { id }, attributes });
const row = async (id: number) => (await h.db.query("SELECT * FROM namespaces WHERE id = $1", [id])).rows[0];

describe("who may update", () => {
  it("is 401 anonymous, 404 to a stranger of a private group, 403 to members below Owner, 200 to owners and admins", async () => {
    const g = await h.newGroup(owner);
    const stranger = await h.newUser();
    const maintainer = await h.newUser();
    await addMember(h, g.id, maintainer.user.id, 40);
    expect(await failure(update(ANONYMOUS, g.id, { description: "x" }))).toEqual(
      failed(status.UNAUTHENTICATED),
    );
    expect(await failure(update(stranger.actor, g.id, { description: "x" }))).toEqual(
      failed(status.NOT_FOUND, { resource: "Group" }),
    );
    expect(await failure(update(maintainer.actor, g.id, { description: "x" }))).toEqual(
      failed(status.PERMISSION_DENIED),
    );
    expect((await row(g.id)).description).toBe("");
    expect((await update(owner.actor, g.id, { description: "by owner" })).group!.description).toBe(
      "by owner",
    );
    expect((await update(h.admin, g.id, { description: "by admin" })).group!.description).toBe("by admin");
  });

  it("lets an Owner of the parent update a subgroup (inherited ownership)", async () => {
    const top = await h.newGroup(owner);
    const sub = await h.newGroup(owner, {}, top.id);
    const heir = await h.newUser();
    await addMember(h, top.id, heir.user.id, 50);
    expect((await update(heir.actor, sub.id, { name: "Renamed By Heir" })).group!.name).toBe(
      "Renamed By Heir",
    );
  });

  it("is 404 for a group that does not exist", async () => {
    expect(await failure(update(owner.actor, 2 ** 40, { name: "x" }))).toEqual(
      failed(status.NOT_FOUND, { resource: "Group" }),
    );
  });
});

describe("attributes", () => {
  it("changes every plain attribute and answers the group as it now is", async () => {
    const g = await h.newGroup(owner);
    const d = await update(owner.actor, g.id, {
      description: "new words",
      visibility: "internal",
      requireTwoFactorAuthentication: true,
      twoFactorGracePeriod: 12,
      projectCreationLevel: "maintainer",
      autoDevopsEnabled: true,
      subgroupCreationLevel: "owner",
      emailsDisabled: true,
      mentionsDisabled: true,
      lfsEnabled: false,
      requestAccessEnabled: false,
      defaultBranchProtection: 1,
      membershipLock: true,
      preventForkingOutsideGroup: true,
      sharedRunnersSetting: "disabled_with_override",
      preventSharingGroupsOutsideHierarchy: true,
      fileTemplateProjectId: 77,
    });
    expect(d.group).toMatchObject({
      description: "new words",
      visibility: "internal",
      requireTwoFactorAuthentication: true,
      twoFactorGracePeriod: 12,
      projectCreationLevel: "maintainer",
      autoDevopsEnabled: true,
      subgroupCreationLevel: "owner",
      emailsDisabled: true,
      mentionsDisabled: true,
      lfsEnabled: false,
      requestAccessEnabled: false,
      defaultBranchProtection: 1,
      membershipLock: true,
      preventForkingOutsideGroup: true,
      sharedRunnersSetting: "disabled_with_override",
      preventSharingGroupsOutsideHierarchy: true,
      fileTemplateProjectId: 77,
    });
    expect(d.accessLevel).toBe(50);
    expect((await h.rpc.getGroup({ actor: owner.actor, group: { id: g.id } })).group).toEqual(d.group);
    const [event] = await updatedEvents(h, g.id);
    expect(event!.changed.sort()).toEqual(
      [
        "auto_devops_enabled",
        "default_branch_protection",
        "description",
        "emails_disabled",
        "file_template_project_id",
        "lfs_enabled",
        "membership_lock",
        "mentions_disabled",
        "prevent_forking_outside_group",
        "prevent_sharing_groups_outside_hierarchy",
        "project_creation_level",
        "request_access_enabled",
        "require_two_factor_authentication",
        "shared_runners_setting",
        "subgroup_creation_level",
        "two_factor_grace_period",
        "visibility",
      ].sort(),
    );
    expect(event!.oldFullPath).toBe("");
  });

  it("treats an empty update, or one that repeats current values, as a no-op: no write, no event", async () => {
    const g = await h.newGroup(owner, { description: "same" });
    const before = await row(g.id);
    const d = await update(owner.actor, g.id, {});
    expect(d.group).toMatchObject({ id: g.id, description: "same" });
    await update(owner.actor, g.id, { description: "same", name: g.name, path: g.path });
    expect((await row(g.id)).updated_at).toEqual(before.updated_at);
    expect(await updatedEvents(h, g.id)).toEqual([]);
  });

  it("answers every validation error at once in the attribute-keyed shape, and changes nothing", async () => {
    const g = await h.newGroup(owner);
    expect(
      await failure(
        update(owner.actor, g.id, {
          name: "<b>x</b>",
          description: "d".repeat(256),
          path: "-x",
          twoFactorGracePeriod: -1,
        }),
      ),
    ).toEqual(
      invalidWith({
        name: [
          "cannot contain HTML/XML tags, including any word between angle brackets (&lt;,&gt;).",
          "can contain only letters, digits, emojis, '_', '.', dash, space, parenthesis. It must start with letter, digit, emoji or '_'.",
        ],
        description: ["is too long (maximum is 255 characters)"],
        two_factor_grace_period: ["must be greater than or equal to 0"],
        path: [
          "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.",
        ],
      }),
    );
    expect(await row(g.id)).toMatchObject({ name: g.name, path: g.path, description: "" });
  });

  it("refuses a blank name, a short path and a reserved top-level path", async () => {
    const g = await h.newGroup(owner);
    expect(await failure(update(owner.actor, g.id, { name: " " }))).toEqual(
      invalidWith({
        name: [
          "can't be blank",
          "can contain only letters, digits, emojis, '_', '.', dash, space, parenthesis. It must start with letter, digit, emoji or '_'.",
        ],
      }),
    );
    expect(await failure(update(owner.actor, g.id, { path: "a" }))).toEqual(
      invalidWith({ path: ["is too short (minimum is 2 characters)"] }),
    );
    expect(await failure(update(owner.actor, g.id, { path: "admin" }))).toEqual(
      invalidWith({ path: ["admin is a reserved name"] }),
    );
  });

  it("refuses a path taken by a sibling or, at the top, a username, whatever the case; its own path in another case is fine", async () => {
    const top = await h.newGroup(owner);
    await h.newGroup(owner, { path: "taken" }, top.id);
    const sub = await h.newGroup(owner, { path: "free" }, top.id);
    expect(await failure(update(owner.actor, sub.id, { path: "TAKEN" }))).toEqual(
      invalidWith({ path: ["has already been taken"] }),
    );
    const other = await h.newUser();
    expect(await failure(update(owner.actor, top.id, { path: other.user.username.toUpperCase() }))).toEqual(
      invalidWith({ path: ["has already been taken"] }),
    );
    expect((await update(owner.actor, sub.id, { path: "FREE" })).group!.fullPath).toBe(`${top.path}/FREE`);
  });
});

describe("renames", () => {
  it("rewrites every descendant's full path and full name, and records the old full path", async () => {
    const top = await h.newGroup(owner, { name: "Top" });
    const mid = await h.newGroup(owner, { name: "Mid", path: "mid" }, top.id);
    const leaf = await h.newGroup(owner, { name: "Leaf", path: "leaf" }, mid.id);
    const newPath = unique("moved_");
    const d = await update(owner.actor, top.id, { path: newPath, name: "New Top" });
    expect(d.group).toMatchObject({ path: newPath, fullPath: newPath, name: "New Top", fullName: "New Top" });
    expect(await row(mid.id)).toMatchObject({ full_path: `${newPath}/mid`, full_name: "New Top / Mid" });
    expect(await row(leaf.id)).toMatchObject({
      full_path: `${newPath}/mid/leaf`,
      full_name: "New Top / Mid / Leaf",
    });
    expect(await failure(h.rpc.getGroup({ actor: owner.actor, group: { fullPath: top.fullPath } }))).toEqual(
      failed(status.NOT_FOUND, { resource: "Group" }),
    );
    const [event] = await updatedEvents(h, top.id);
    expect(event).toMatchObject({
      oldFullPath: top.fullPath,
      group: { fullPath: newPath, fullName: "New Top" },
    });
    expect(event!.changed.sort()).toEqual(["name", "path"]);
  });

  it("renames a subgroup under its parent's path, leaving siblings alone", async () => {
    const top = await h.newGroup(owner, { name: "T" });
    const a = await h.newGroup(owner, { name: "A", path: "aa" }, top.id);
    const ab = await h.newGroup(owner, { name: "AB", path: "aab" }, top.id);
    const child = await h.newGroup(owner, { name: "C", path: "cc" }, a.id);
    await update(owner.actor, a.id, { name: "A2", path: "a2" });
    expect(await row(child.id)).toMatchObject({ full_path: `${top.path}/a2/cc`, full_name: "T / A2 / C" });
    expect(await row(ab.id)).toMatchObject({ full_path: `${top.path}/aab`, full_name: "T / AB" });
  });
});

describe("visibility between levels", () => {
  it("may not rise above the parent", async () => {
    const top = await h.newGroup(owner, { visibility: "internal" });
    const sub = await h.newGroup(owner, { visibility: "internal" }, top.id);
    expect(await failure(update(owner.actor, sub.id, { visibility: "public" }))).toEqual(
      invalidWith({
        visibility_level: ["public is not allowed since the parent group has a internal visibility."],
      }),
    );
  });

  it("may not fall below a direct subgroup, and may once the subgroup falls first", async () => {
    const top = await h.newGroup(owner, { visibility: "public" });
    const sub = await h.newGroup(owner, { visibility: "internal" }, top.id);
    expect(await failure(update(owner.actor, top.id, { visibility: "private" }))).toEqual(
      invalidWith({
        visibility_level: ["private is not allowed since there are sub-groups with higher visibility."],
      }),
    );
    expect((await update(owner.actor, top.id, { visibility: "internal" })).group!.visibility).toBe(
      "internal",
    );
    await update(owner.actor, sub.id, { visibility: "private" });
    expect((await update(owner.actor, top.id, { visibility: "private" })).group!.visibility).toBe("private");
  });
});

describe("share_with_group_lock", () => {
  it("turned on reaches every descendant", async () => {
    const top = await h.newGroup(owner);
    const sub = await h.newGroup(owner, {}, top.id);
    const leaf = await h.newGroup(owner, {}, sub.id);
    await update(owner.actor, top.id, { shareWithGroupLock: true });
    expect((await row(sub.id)).share_with_group_lock).toBe(true);
    expect((await row(leaf.id)).share_with_group_lock).toBe(true);
  });

  it("under a locked parent may be turned off only by an owner of the parent", async () => {
    const top = await h.newGroup(owner, { shareWithGroupLock: true });
    const sub = await h.newGroup(owner, {}, top.id);
    const subOwner = await h.newUser();
    await addMember(h, sub.id, subOwner.user.id, 50);
    expect(
      await failure(update(subOwner.actor, sub.id, { shareWithGroupLock: false, description: "x" })),
    ).toEqual(
      invalidWith({
        share_with_group_lock: [
          'cannot be disabled when the parent group "Share with group lock" is enabled, except by the owner of the parent group',
        ],
      }),
    );
    expect((await row(sub.id)).description).toBe("");
    // Sending the value it already has is no change, so no refusal.
    expect(
      (await update(subOwner.actor, sub.id, { shareWithGroupLock: true })).group!.shareWithGroupLock,
    ).toBe(true);
    expect((await update(owner.actor, sub.id, { shareWithGroupLock: false })).group!.shareWithGroupLock).toBe(
      false,
    );
  });
});

describe("settings with their own scope", () => {
  it("ignores prevent_sharing_groups_outside_hierarchy on a subgroup", async () => {
    const top = await h.newGroup(owner);
    const sub = await h.newGroup(owner, {}, top.id);
    await update(owner.actor, sub.id, { preventSharingGroupsOutsideHierarchy: true });
    expect((await row(sub.id)).prevent_sharing_groups_outside_hierarchy).toBe(false);
  });

  it("lets only administrators set the CI minutes limits (403 for owners, nothing changed)", async () => {
    const g = await h.newGroup(owner);
    expect(
      await failure(update(owner.actor, g.id, { sharedRunnersMinutesLimit: 10, description: "x" })),
    ).toEqual(failed(status.PERMISSION_DENIED));
    expect(await failure(update(owner.actor, g.id, { extraSharedRunnersMinutesLimit: 10 }))).toEqual(
      failed(status.PERMISSION_DENIED),
    );
    expect((await row(g.id)).description).toBe("");
    const d = await update(h.admin, g.id, {
      sharedRunnersMinutesLimit: 100,
      extraSharedRunnersMinutesLimit: 5,
    });
    expect(d.group).toMatchObject({ sharedRunnersMinutesLimit: 100, extraSharedRunnersMinutesLimit: 5 });
  });

  it("shared runners disabled without override reach every descendant, which may then not enable them", async () => {
    const top = await h.newGroup(owner);
    const sub = await h.newGroup(owner, {}, top.id);
    const leaf = await h.newGroup(owner, {}, sub.id);
    await update(owner.actor, top.id, { sharedRunnersSetting: "disabled_and_unoverridable" });
    expect((await row(leaf.id)).shared_runners_setting).toBe("disabled_and_unoverridable");
    expect(await failure(update(owner.actor, sub.id, { sharedRunnersSetting: "enabled" }))).toEqual(
      invalidWith({
        update_shared_runners: [
          "Shared runners enabled cannot be enabled because parent group has shared Runners disabled",
        ],
      }),
    );
    await update(owner.actor, top.id, { sharedRunnersSetting: "enabled" });
    expect(
      (await update(owner.actor, sub.id, { sharedRunnersSetting: "enabled" })).group!.sharedRunnersSetting,
    ).toBe("enabled");
    expect((await row(leaf.id)).shared_runners_setting).toBe("disabled_and_unoverridable");
  });

  it("refuses values outside the lists", async () => {
    const g = await h.newGroup(owner);
    expect(
      await failure(
        update(owner.actor, g.id, { sharedRunnersSetting: "sometimes", defaultBranchProtection: 9 }),
      ),
    ).toEqual(
      invalidWith({
        default_branch_protection: ["is not included in the list"],
        shared_runners_setting: ["is not included in the list"],
      }),
    );
  });
});
