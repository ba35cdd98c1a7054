import { ANONYMOUS, failed, failure, startHarness, status, unique, waitFor, type Harness } from "./support";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ CANOPY_PLAN: "ultimate" });
});
afterAll(() => h.stop());

const notFound = failed(status.NOT_FOUND, { resource: "Project" });
const forbidden = failed(status.PERMISSION_DENIED);
const exists = async (id: number) =>
  (await h.db.query("SELECT 1 FROM projects WHERE id = $1", [id])).rowCount === 1;

describe("UpdateProject, archive, delete: who may", () => {
  it("lets Maintainers update and archive, refuses Developers (403) and strangers (404)", async () => {
    const owner = await h.newUser();
    const maintainer = await h.newUser();
    const dev = await h.newUser();
    const stranger = await h.newUser();
    const group = await h.newGroup(owner, { visibility: "internal" });
    await h.addMember(group.id, maintainer, 40);
    await h.addMember(group.id, dev, 30);
    const p = await h.newProject(owner, group.id, { visibility: "internal" });
    const update = (actor: typeof ANONYMOUS, attributes: object) =>
      h.rpc.updateProject({ actor, project: { id: p.id }, attributes });
    expect(
      await update(maintainer.actor, { description: "new", flags: { wiki_enabled: false } }),
    ).toMatchObject({
      description: "new",
      accessLevels: { wiki: "disabled" },
    });
    expect(await failure(update(dev.actor, { description: "x" }))).toEqual(forbidden);
    expect(await failure(update(ANONYMOUS, { description: "x" }))).toEqual(failed(status.UNAUTHENTICATED));
    // Internal: a signed-in stranger sees it, so they are refused, not told it is missing.
    expect(await failure(update(stranger.actor, { description: "x" }))).toEqual(forbidden);
    expect(await failure(update(maintainer.actor, { visibility: "public" }))).toEqual(
      failed(status.INVALID_ARGUMENT, {
        fieldErrors: { visibility_level: ["public is not allowed in a internal group."] },
      }),
    );
    expect(await failure(update(maintainer.actor, { path: "new" }))).toEqual(
      failed(status.INVALID_ARGUMENT, { fieldErrors: { path: ["new is a reserved name"] } }),
    );
    const path = unique("renamed_");
    expect(await update(maintainer.actor, { path, name: "Renamed" })).toMatchObject({
      path,
      name: "Renamed",
    });
    expect((await h.rpc.archiveProject({ actor: maintainer.actor, project: { id: p.id } })).archived).toBe(
      true,
    );
    expect((await h.rpc.archiveProject({ actor: maintainer.actor, project: { id: p.id } })).archived).toBe(
      true,
    );
    expect(await failure(h.rpc.archiveProject({ actor: dev.actor, project: { id: p.id } }))).toEqual(
      forbidden,
    );
    expect((await h.rpc.unarchiveProject({ actor: maintainer.actor, project: { id: p.id } })).archived).toBe(
      false,
    );
  });

  it("lets Owners delete: marked on premium and up, a second DELETE is 400; Maintainers get 403", async () => {
    const owner = await h.newUser();
    const maintainer = await h.newUser();
    const group = await h.newGroup(owner);
    await h.addMember(group.id, maintainer, 40);
    const p = await h.newProject(owner, group.id);
    expect(await failure(h.rpc.deleteProject({ actor: maintainer.actor, project: { id: p.id } }))).toEqual(
      forbidden,
    );
    expect(await h.rpc.deleteProject({ actor: owner.actor, project: { id: p.id } })).toEqual({
      marked: true,
    });
    const marked = await h.rpc.getProject({ actor: owner.actor, project: { id: p.id } });
    expect(marked.markedForDeletionOn).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(await failure(h.rpc.deleteProject({ actor: owner.actor, project: { id: p.id } }))).toEqual(
      failed(status.FAILED_PRECONDITION, {
        publicMessage: "Project has been already marked for deletion",
        httpStatus: 400,
      }),
    );
    const personal = await h.newProject(owner);
    const stranger = await h.newUser();
    expect(
      await failure(h.rpc.deleteProject({ actor: stranger.actor, project: { id: personal.id } })),
    ).toEqual(notFound);
  });
});

describe("cascades from the groups service's events", () => {
  it("hides a marked group's projects from lists, shows them again on restore, removes them with the group", async () => {
    const owner = await h.newUser();
    const top = await h.newGroup(owner);
    const sub = await h.newGroup(owner, {}, top.id);
    const tag = unique("cas");
    const p = await h.newProject(owner, sub.id, { name: tag, path: tag });
    const listed = async () =>
      (await h.rpc.listProjects({ actor: owner.actor, search: tag })).projects.map((x) => x.id);
    expect(await listed()).toEqual([p.id]);
    await h.lifecycleRpc.deleteGroup({ actor: owner.actor, group: { id: top.id } });
    await waitFor("the mark to hide the project", async () => (await listed()).length === 0);
    await h.lifecycleRpc.restoreGroup({ actor: owner.actor, group: { id: top.id } });
    await waitFor("the restore to show it again", async () => (await listed()).length === 1);
    await h.lifecycleRpc.deleteGroup({ actor: owner.actor, group: { id: sub.id } });
    await h.lifecycleRpc.deleteGroup({
      actor: owner.actor,
      group: { id: sub.id },
      permanentlyRemove: true,
      fullPath: sub.fullPath,
    });
    await waitFor("the removal to remove the project", async () => !(await exists(p.id)), 20_000);
  });

  it("follows a transfer: the project's full path and traversal_ids move with its group", async () => {
    const owner = await h.newUser();
    const a = await h.newGroup(owner);
    const b = await h.newGroup(owner);
    const sub = await h.newGroup(owner, {}, a.id);
    const p = await h.newProject(owner, sub.id);
    await h.lifecycleRpc.transferGroup({ actor: owner.actor, group: { id: sub.id }, newParentId: b.id });
    const moved = `${b.fullPath}/${sub.path}/${p.path}`;
    await waitFor("the transfer to reach projects", async () => {
      const found = await h.rpc
        .getProject({ actor: owner.actor, project: { fullPath: moved } })
        .catch(() => undefined);
      return found?.id === p.id;
    });
    const { rows } = await h.db.query("SELECT traversal_ids::int[] AS t FROM projects WHERE id = $1", [p.id]);
    expect(rows[0].t).toEqual([b.id, sub.id]);
    // Access now comes from the new parent.
    const bMember = await h.newUser();
    await h.addMember(b.id, bMember, 20);
    expect((await h.rpc.getProject({ actor: bMember.actor, project: { id: p.id } })).accessLevel).toBe(20);
  });

  it("follows a rename of an ancestor", async () => {
    const owner = await h.newUser();
    const top = await h.newGroup(owner);
    const sub = await h.newGroup(owner, {}, top.id);
    const p = await h.newProject(owner, sub.id);
    const path = unique("ren_");
    await h.groupsRpc.updateGroup({ actor: owner.actor, group: { id: top.id }, attributes: { path } });
    await waitFor("the rename to reach projects", async () => {
      const found = await h.rpc
        .getProject({ actor: owner.actor, project: { fullPath: `${path}/${sub.path}/${p.path}` } })
        .catch(() => undefined);
      return found?.id === p.id;
    });
  });
});
