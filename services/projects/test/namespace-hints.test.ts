import { filledClient } from "@canopy/kit/testing";
import { namespaces } from "@canopy/protos";
import { failed, failure, startHarness, status, waitFor, type Harness, type TestUser } from "./support";

// POST /projects: the gateway passes the namespace as the groups service answered it (a hint), so a
// namespace or membership whose event has not arrived yet is known at once, and a namespace the
// groups service does not show is refused at once. And the group's project_creation_level.

let h: Harness;
let namespacesRpc: ReturnType<typeof namespacesClient>;
const namespacesClient = (hh: Harness) =>
  filledClient(hh.groupsService.client(namespaces.NamespacesServiceService), {
    listNamespaces: namespaces.ListNamespacesRequest,
    getNamespace: namespaces.GetNamespaceRequest,
    getNamespaceHint: namespaces.GetNamespaceRequest,
  });

beforeAll(async () => {
  // A long wait would show: a namespace_id must never be awaited.
  h = await startHarness({ CANOPY_PROJECTS_COPY_WAIT_MS: "10000" });
  namespacesRpc = namespacesClient(h);
});
afterAll(() => h.stop());

const namespaceNotValid = failed(status.INVALID_ARGUMENT, { fieldErrors: { namespace: ["is not valid"] } });

const hintFor = (user: TestUser, id: number) =>
  namespacesRpc.getNamespaceHint({ actor: user.actor, namespace: { id } });

/** A project in `namespaceId` passing the hint as the gateway does. */
const createWithHint = async (user: TestUser, namespaceId: number) =>
  h.rpc.createProject({
    actor: user.actor,
    namespaceId,
    attributes: { name: `p${Date.now()}`, path: `p${Date.now()}` },
    namespace: await hintFor(user, namespaceId),
  });

/** Forgets the copy as if the groups service's events had not arrived yet. */
const forgetCopy = async (groupId: number) => {
  await h.db.query("DELETE FROM group_members WHERE namespace_id = $1", [groupId]);
  await h.db.query("DELETE FROM namespaces WHERE id = $1", [groupId]);
};

describe("GetNamespaceHint (groups)", () => {
  it("gives the namespace's snapshot and the caller's access, NOT_FOUND to strangers", async () => {
    const owner = await h.newUser();
    const dev = await h.newUser();
    const stranger = await h.newUser();
    const top = await h.newGroup(owner);
    const sub = await h.newGroup(owner, { projectCreationLevel: "maintainer" }, top.id);
    await h.addMember(top.id, dev, 30);
    expect(await hintFor(dev, sub.id)).toEqual({
      namespace: expect.objectContaining({
        id: sub.id,
        kind: "group",
        parentId: top.id,
        traversalIds: [top.id, sub.id],
        fullPath: sub.fullPath,
        projectCreationLevel: 1,
      }),
      accessLevel: 30,
    });
    expect(await failure(hintFor(stranger, sub.id))).toEqual(
      failed(status.NOT_FOUND, { resource: "Namespace" }),
    );
    const own = await namespacesRpc.getNamespaceHint({
      actor: dev.actor,
      namespace: { fullPath: dev.user.username },
    });
    expect(own).toMatchObject({ namespace: { kind: "user", ownerId: dev.user.id }, accessLevel: 50 });
  });
});

describe("CreateProject with a namespace hint", () => {
  it("writes a missing copy from the hint and creates at once", async () => {
    const owner = await h.newUser();
    const group = await h.newGroup(owner);
    await forgetCopy(group.id);
    const project = await createWithHint(owner, group.id);
    expect(project).toMatchObject({ namespace: { id: group.id, fullPath: group.fullPath }, accessLevel: 50 });
    const { rows } = await h.db.query("SELECT full_path FROM namespaces WHERE id = $1", [group.id]);
    expect(rows).toEqual([{ full_path: group.fullPath }]);
  });

  it("takes the caller's access from the hint while their membership's event is on its way", async () => {
    const owner = await h.newUser();
    const dev = await h.newUser();
    const group = await h.newGroup(owner);
    await h.addMember(group.id, dev, 30);
    await h.db.query("DELETE FROM group_members WHERE namespace_id = $1 AND user_id = $2", [
      group.id,
      dev.user.id,
    ]);
    expect(await createWithHint(dev, group.id)).toMatchObject({ accessLevel: 30 });
  });

  it("answers a namespace nobody showed at once, without waiting for a copy", async () => {
    const user = await h.newUser();
    const started = Date.now();
    expect(await failure(h.newProject(user, 987654321))).toEqual(namespaceNotValid);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("does not bring back a removed namespace from a late hint", async () => {
    const owner = await h.newUser();
    const top = await h.newGroup(owner);
    const group = await h.newGroup(owner, {}, top.id);
    const hint = await hintFor(owner, group.id);
    await h.lifecycleRpc.deleteGroup({ actor: owner.actor, group: { id: group.id } });
    await h.lifecycleRpc.deleteGroup({
      actor: owner.actor,
      group: { id: group.id },
      permanentlyRemove: true,
      fullPath: group.fullPath,
    });
    await waitFor(
      `removal of ${group.id}`,
      async () =>
        (await h.db.query("SELECT 1 FROM removed_namespaces WHERE id = $1", [group.id])).rowCount === 1,
      20_000,
    );
    const late = h.rpc.createProject({
      actor: owner.actor,
      namespaceId: group.id,
      attributes: { name: "late", path: "late" },
      namespace: hint,
    });
    expect(await failure(late)).toEqual(namespaceNotValid);
    const { rowCount } = await h.db.query("SELECT 1 FROM namespaces WHERE id = $1", [group.id]);
    expect(rowCount).toBe(0);
  });
});

describe("project_creation_level", () => {
  it("lets Developers create by default, only Maintainers with maintainer, nobody with noone", async () => {
    const owner = await h.newUser();
    const dev = await h.newUser();
    const maintainer = await h.newUser();
    const group = await h.newGroup(owner);
    await h.addMember(group.id, dev, 30);
    await h.addMember(group.id, maintainer, 40);
    expect(await h.newProject(dev, group.id)).toMatchObject({ accessLevel: 30 });

    const setLevel = async (level: string, stored: number) => {
      await h.groupsRpc.updateGroup({
        actor: owner.actor,
        group: { id: group.id },
        attributes: { projectCreationLevel: level },
      });
      await h.copied(
        `project_creation_level ${level} of ${group.id}`,
        "SELECT 1 FROM namespaces WHERE id = $1 AND project_creation_level = $2",
        [group.id, stored],
      );
    };
    await setLevel("maintainer", 1);
    expect(await failure(h.newProject(dev, group.id))).toEqual(namespaceNotValid);
    expect(await h.newProject(maintainer, group.id)).toMatchObject({ accessLevel: 40 });

    await setLevel("noone", 0);
    expect(await failure(h.newProject(owner, group.id))).toEqual(namespaceNotValid);
    expect(await failure(h.newProject(h.admin, group.id))).toEqual(namespaceNotValid);

    await setLevel("developer", 2);
    expect(await h.newProject(dev, group.id)).toMatchObject({ accessLevel: 30 });
  });

  it("follows the hint's level, fresher than the copy", async () => {
    const owner = await h.newUser();
    const dev = await h.newUser();
    const group = await h.newGroup(owner, { projectCreationLevel: "maintainer" });
    await h.addMember(group.id, dev, 30);
    await h.db.query("UPDATE namespaces SET project_creation_level = 2 WHERE id = $1", [group.id]);
    expect(await failure(createWithHint(dev, group.id))).toEqual(namespaceNotValid);
  });
});
