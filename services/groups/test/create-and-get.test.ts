import { startHarness, failure, failed, status, unique, ANONYMOUS, type Harness } from "./support";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

describe("users reach the groups service through auth's events", () => {
  it("keeps a copy of each user and gives them a personal namespace", async () => {
    const { user } = await h.newUser({ name: "Ada Lovelace" });
    const { rows } = await h.db.query(
      "SELECT u.username, u.name, n.kind, n.full_path FROM users u JOIN namespaces n ON n.owner_id = u.id WHERE u.id = $1",
      [user.id],
    );
    expect(rows).toEqual([
      { username: user.username, name: "Ada Lovelace", kind: "user", full_path: user.username },
    ]);
  });
});

describe("CreateGroup and GetGroup", () => {
  it("creates a top-level group with GitLab's defaults and the creator as Owner", async () => {
    const owner = await h.newUser();
    const path = unique("top_");
    const detail = await h.rpc.createGroup({ actor: owner.actor, attributes: { name: "Top Group", path } });
    expect(detail.group).toMatchObject({
      name: "Top Group",
      path,
      fullPath: path,
      fullName: "Top Group",
      description: "",
      visibility: "private",
      parentId: 0,
      projectCreationLevel: "developer",
      subgroupCreationLevel: "maintainer",
      twoFactorGracePeriod: 48,
      lfsEnabled: true,
      requestAccessEnabled: true,
      defaultBranchProtection: 2,
    });
    expect(detail.group!.autoDevopsEnabled).toBeUndefined();
    expect(detail.accessLevel).toBe(50);
    const { rows } = await h.db.query("SELECT user_id, access_level FROM members WHERE namespace_id = $1", [
      detail.group!.id,
    ]);
    expect(rows).toEqual([{ user_id: owner.user.id, access_level: 50 }]);
  });

  it("creates a subgroup with full path, full name and traversal ids from its parent", async () => {
    const owner = await h.newUser();
    const top = await h.newGroup(owner, { name: "Parent" });
    const sub = await h.newGroup(owner, { name: "Child", path: "child" }, top.id);
    expect(sub).toMatchObject({
      parentId: top.id,
      fullPath: `${top.path}/child`,
      fullName: "Parent / Child",
    });
    const { rows } = await h.db.query("SELECT traversal_ids FROM namespaces WHERE id = $1", [sub.id]);
    expect(rows[0].traversal_ids).toEqual([top.id, sub.id]);
  });

  it("finds a group by id or by full path, case-insensitively", async () => {
    const owner = await h.newUser();
    const top = await h.newGroup(owner, { path: unique("Case_") });
    const sub = await h.newGroup(owner, { path: "Inner" }, top.id);
    const byPath = await h.rpc.getGroup({
      actor: owner.actor,
      group: { fullPath: sub.fullPath.toUpperCase() },
    });
    expect(byPath.group!.id).toBe(sub.id);
    const byId = await h.rpc.getGroup({ actor: owner.actor, group: { id: sub.id } });
    expect(byId.group!.fullPath).toBe(sub.fullPath);
  });

  it("refuses a path already taken in the same parent, whatever its case", async () => {
    const owner = await h.newUser();
    const top = await h.newGroup(owner);
    await h.newGroup(owner, { path: "dup" }, top.id);
    expect(
      await failure(
        h.rpc.createGroup({ actor: owner.actor, attributes: { name: "x", path: "DUP" }, parentId: top.id }),
      ),
    ).toEqual(
      failed(status.INVALID_ARGUMENT, {
        httpStatus: 400,
        publicMessage: 'Failed to save group {:path=>["has already been taken"]}',
      }),
    );
  });

  it("refuses a top-level path that is a username", async () => {
    const owner = await h.newUser();
    const other = await h.newUser();
    const f = await failure(
      h.rpc.createGroup({ actor: owner.actor, attributes: { name: "x", path: other.user.username } }),
    );
    expect(f.publicMessage).toBe('Failed to save group {:path=>["has already been taken"]}');
  });

  it("answers reserved names, bad paths and HTML names with GitLab's messages", async () => {
    const owner = await h.newUser();
    const f = await failure(
      h.rpc.createGroup({ actor: owner.actor, attributes: { name: "<b>x</b>", path: "admin" } }),
    );
    expect(f.publicMessage).toBe(
      'Failed to save group {:name=>["cannot contain HTML/XML tags, including any word between angle brackets (&lt;,&gt;).", ' +
        `"can contain only letters, digits, emojis, '_', '.', dash, space, parenthesis. It must start with letter, digit, emoji or '_'."], ` +
        ':path=>["admin is a reserved name"]}',
    );
    const g = await failure(
      h.rpc.createGroup({ actor: owner.actor, attributes: { name: "ok", path: "-bad." } }),
    );
    expect(g.publicMessage).toContain("can contain only letters, digits, '_', '-' and '.'");
  });

  it("refuses a subgroup more visible than its parent", async () => {
    const owner = await h.newUser();
    const top = await h.newGroup(owner, { visibility: "internal" });
    const f = await failure(
      h.rpc.createGroup({
        actor: owner.actor,
        attributes: { name: "s", path: "s1", visibility: "public" },
        parentId: top.id,
      }),
    );
    expect(f.publicMessage).toBe(
      'Failed to save group {:visibility_level=>["public is not allowed since the parent group has a internal visibility."]}',
    );
  });

  it("hides a private group from strangers and anonymous callers (404 Group), shows a public one", async () => {
    const owner = await h.newUser();
    const stranger = await h.newUser();
    const hidden = await h.newGroup(owner);
    const open = await h.newGroup(owner, { visibility: "public" });
    for (const actor of [stranger.actor, ANONYMOUS])
      expect(await failure(h.rpc.getGroup({ actor, group: { id: hidden.id } }))).toEqual(
        failed(status.NOT_FOUND, { resource: "Group" }),
      );
    const seen = await h.rpc.getGroup({ actor: ANONYMOUS, group: { id: open.id } });
    expect(seen.accessLevel).toBe(0);
    expect((await h.rpc.getGroup({ actor: h.admin, group: { id: hidden.id } })).accessLevel).toBe(50);
  });

  it("lets a member of a subgroup see its private parent; inherited access reaches down", async () => {
    const owner = await h.newUser();
    const top = await h.newGroup(owner);
    const sub = await h.newGroup(owner, {}, top.id);
    const below = await h.newUser();
    await h.db.query("INSERT INTO members (namespace_id, user_id, access_level) VALUES ($1, $2, 30)", [
      sub.id,
      below.user.id,
    ]);
    expect((await h.rpc.getGroup({ actor: below.actor, group: { id: top.id } })).accessLevel).toBe(0);
    expect((await h.rpc.getGroup({ actor: below.actor, group: { id: sub.id } })).accessLevel).toBe(30);
    expect((await h.rpc.getGroup({ actor: owner.actor, group: { id: sub.id } })).accessLevel).toBe(50);
  });

  it("lets only users who may create subgroups create them (403 after the parent is visible)", async () => {
    const owner = await h.newUser();
    const top = await h.newGroup(owner, { visibility: "internal" });
    const stranger = await h.newUser();
    expect(
      await failure(
        h.rpc.createGroup({ actor: stranger.actor, attributes: { name: "s", path: "s2" }, parentId: top.id }),
      ),
    ).toEqual(failed(status.PERMISSION_DENIED));
  });

  it("refuses a top-level group to a user who may not create groups", async () => {
    const limited = await h.newUser({ canCreateGroup: false });
    expect(
      await failure(
        h.rpc.createGroup({ actor: limited.actor, attributes: { name: "t", path: unique("t_") } }),
      ),
    ).toEqual(failed(status.PERMISSION_DENIED));
  });
});
