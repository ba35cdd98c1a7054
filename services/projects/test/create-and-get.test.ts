import { ANONYMOUS, failed, failure, startHarness, status, unique, type Harness } from "./support";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

const notFound = failed(status.NOT_FOUND, { resource: "Project" });
const namespaceNotValid = failed(status.INVALID_ARGUMENT, { fieldErrors: { namespace: ["is not valid"] } });

describe("CreateProject", () => {
  it("creates a personal project with GitLab's defaults, its creator its Owner", async () => {
    const alice = await h.newUser();
    const p = await h.rpc.createProject({ actor: alice.actor, attributes: { name: "My Project" } });
    expect(p).toMatchObject({
      name: "My Project",
      path: "my-project",
      visibility: "private",
      archived: false,
      topics: [],
      creatorId: alice.user.id,
      starCount: 0,
      accessLevel: 50,
      projectAccessLevel: 50,
      namespace: { kind: "user", fullPath: alice.user.username, ownerId: alice.user.id },
    });
    expect(p.description).toBeUndefined();
    expect(p.defaultBranch).toBeUndefined();
    expect(p.accessLevels).toMatchObject({ issues: "enabled", merge_requests: "enabled", pages: "private" });
    expect(p.flags).toMatchObject({
      lfs_enabled: true,
      shared_runners_enabled: true,
      request_access_enabled: true,
    });
    expect(p.texts).toMatchObject({ merge_method: "merge", squash_option: "default_off" });
    expect(p.texts.ci_config_path).toBeUndefined();
    expect(p.numbers).toMatchObject({ build_timeout: 3600, ci_default_git_depth: 20 });
  });

  it("takes the name from the path when only the path is given, and settings as given", async () => {
    const alice = await h.newUser();
    const path = unique("only_path_");
    const p = await h.rpc.createProject({
      actor: alice.actor,
      attributes: {
        path,
        description: "d",
        visibility: "public",
        defaultBranch: "trunk",
        topics: { topics: ["a", " b ", "A", ""] },
        accessLevels: { wiki: "disabled" },
        flags: { issues_enabled: false, lfs_enabled: false },
        texts: { merge_method: "ff" },
      },
    });
    expect(p).toMatchObject({
      name: path,
      path,
      description: "d",
      visibility: "public",
      defaultBranch: "trunk",
      topics: ["a", "b"],
    });
    expect(p.accessLevels).toMatchObject({ wiki: "disabled", issues: "disabled", repository: "enabled" });
    expect(p.flags.lfs_enabled).toBe(false);
    expect(p.texts.merge_method).toBe("ff");
  });

  it("creates in a group for a Developer, refuses a Reporter and a stranger as GitLab does", async () => {
    const owner = await h.newUser();
    const dev = await h.newUser();
    const reporter = await h.newUser();
    const stranger = await h.newUser();
    const group = await h.newGroup(owner);
    await h.addMember(group.id, dev, 30);
    await h.addMember(group.id, reporter, 20);
    const p = await h.newProject(dev, group.id);
    expect(p).toMatchObject({
      namespace: { id: group.id, kind: "group", fullPath: group.fullPath },
      accessLevel: 30,
    });
    expect(await failure(h.newProject(reporter, group.id))).toEqual(namespaceNotValid);
    expect(await failure(h.newProject(stranger, group.id))).toEqual(namespaceNotValid);
    expect(await failure(h.newProject(dev, 987654321))).toEqual(namespaceNotValid);
    // The group's own creator is its Owner from the group's first moment.
    expect(await h.newProject(owner, group.id)).toMatchObject({ accessLevel: 50 });
  });

  it("creates in a subgroup for an Owner of an ancestor, and as an administrator anywhere", async () => {
    const owner = await h.newUser();
    const top = await h.newGroup(owner);
    const sub = await h.newGroup(owner, {}, top.id);
    const stranger = await h.newUser();
    const leaf = await h.newGroup(stranger);
    expect(await h.newProject(owner, sub.id)).toMatchObject({
      namespace: { fullPath: sub.fullPath, parentId: top.id },
    });
    expect(await h.newProject(h.admin, leaf.id)).toMatchObject({ creatorId: h.admin.userId });
  });

  it("refuses anonymous callers", async () => {
    expect(await failure(h.newProject(ANONYMOUS))).toEqual(failed(status.UNAUTHENTICATED));
  });

  it("checks names and paths with GitLab's messages", async () => {
    const alice = await h.newUser();
    const fails = (attributes: object) => failure(h.newProject(alice, 0, attributes));
    expect((await fails({ name: "-bad", path: unique("x") })).fieldErrors).toEqual({
      name: [
        "can contain only letters, digits, emojis, '_', '.', dash, space. It must start with letter, digit, emoji or '_'.",
      ],
    });
    expect((await fails({ path: "x.git" })).fieldErrors).toEqual({
      path: [
        "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'",
      ],
    });
    expect((await fails({ path: "Blob" })).fieldErrors).toEqual({ path: ["Blob is a reserved name"] });
    // GitLab runs the format check on a blank name too.
    expect((await fails({ name: "  ", path: unique("y") })).fieldErrors.name?.[0]).toBe("can't be blank");
  });

  it("keeps paths unique per namespace case-insensitively, names exactly, and away from subgroups", async () => {
    const owner = await h.newUser();
    const group = await h.newGroup(owner);
    const sub = await h.newGroup(owner, {}, group.id);
    const path = unique("Same_");
    await h.newProject(owner, group.id, { path, name: "Same Name" });
    const taken = failed(status.INVALID_ARGUMENT, { fieldErrors: { path: ["has already been taken"] } });
    expect(
      await failure(h.newProject(owner, group.id, { path: path.toLowerCase(), name: unique("n") })),
    ).toEqual(taken);
    expect(await failure(h.newProject(owner, group.id, { path: unique("q"), name: "Same Name" }))).toEqual(
      failed(status.INVALID_ARGUMENT, { fieldErrors: { name: ["has already been taken"] } }),
    );
    expect(
      await failure(h.newProject(owner, group.id, { path: sub.path.toUpperCase(), name: unique("n") })),
    ).toEqual(taken);
    // The same path in another namespace is fine.
    expect(await h.newProject(owner, sub.id, { path, name: "Same Name" })).toMatchObject({ path });
  });

  it("refuses a project more visible than its group", async () => {
    const owner = await h.newUser();
    const group = await h.newGroup(owner, { visibility: "internal" });
    expect(await failure(h.newProject(owner, group.id, { visibility: "public" }))).toEqual(
      failed(status.INVALID_ARGUMENT, {
        fieldErrors: { visibility_level: ["public is not allowed in a internal group."] },
      }),
    );
    expect(await h.newProject(owner, group.id, { visibility: "internal" })).toMatchObject({
      visibility: "internal",
    });
  });
});

describe("GetProject", () => {
  it("finds a project by id and by its full path, case-insensitively", async () => {
    const owner = await h.newUser();
    const group = await h.newGroup(owner);
    const sub = await h.newGroup(owner, {}, group.id);
    const p = await h.newProject(owner, sub.id);
    const byPath = await h.rpc.getProject({
      actor: owner.actor,
      project: { fullPath: `${sub.fullPath}/${p.path}`.toUpperCase() },
    });
    expect(byPath.id).toBe(p.id);
    expect((await h.rpc.getProject({ actor: owner.actor, project: { id: p.id } })).namespace?.fullPath).toBe(
      sub.fullPath,
    );
    expect(await failure(h.rpc.getProject({ actor: owner.actor, project: { id: 987654321 } }))).toEqual(
      notFound,
    );
    expect(await failure(h.rpc.getProject({ actor: owner.actor, project: { fullPath: "no/such" } }))).toEqual(
      notFound,
    );
  });

  it("hides private projects from strangers and internal ones from anonymous and external users", async () => {
    const owner = await h.newUser();
    const stranger = await h.newUser();
    const external = await h.newUser({ external: true });
    const group = await h.newGroup(owner, { visibility: "public" });
    const priv = await h.newProject(owner, group.id, { visibility: "private" });
    const internal = await h.newProject(owner, group.id, { visibility: "internal" });
    const pub = await h.newProject(owner, group.id, { visibility: "public" });
    const get = (actor: typeof ANONYMOUS, id: number) => h.rpc.getProject({ actor, project: { id } });
    for (const actor of [ANONYMOUS, stranger.actor, external.actor])
      expect(await failure(get(actor, priv.id))).toEqual(notFound);
    for (const actor of [ANONYMOUS, external.actor])
      expect(await failure(get(actor, internal.id))).toEqual(notFound);
    expect((await get(stranger.actor, internal.id)).accessLevel).toBe(0);
    for (const actor of [ANONYMOUS, stranger.actor, external.actor])
      expect((await get(actor, pub.id)).id).toBe(pub.id);
    expect((await get(h.admin, priv.id)).accessLevel).toBe(50);
  });
});
