// gitbeaker, unchanged, drives the Projects API: projects, their lists, the group project lists and
// shared projects, project members, sharing, stars, archive, transfer into a group, and what a
// second (non-admin) user may see of all of it.
import { AccessLevel, Gitlab } from "@gitbeaker/rest";
import { createToken, createUser, unique } from "../support/api";
import { refusal, type Client } from "../support/gitbeaker";
import type { Session } from "../support/session";

const ids = (items: { id: unknown }[]) => items.map((x) => x.id as number).sort((a, b) => a - b);

export function gitbeakerProjects(session: Session) {
  describe("gitbeaker against the Projects API", () => {
    let root: Client;
    let alice: Client;
    let bob: Client;
    const users = {} as Record<"alice" | "bob", { id: number; username: string }>;
    const run = unique("");
    let group: number;
    let team: number;
    const made = {} as Record<"pub" | "priv" | "personal", number>;

    beforeAll(async () => {
      const { url, rootToken } = session.stack;
      root = new Gitlab({ host: url, token: rootToken });
      for (const name of ["alice", "bob"] as const) {
        const user = await createUser(url, rootToken, session.secrets);
        users[name] = user;
        const { token } = await createToken(url, rootToken, user.id, session.secrets);
        if (name === "alice") alice = new Gitlab({ host: url, token });
        else bob = new Gitlab({ host: url, token });
      }
      group = (await alice.Groups.create(`GBP ${run}`, `gbp-${run}`, { visibility: "public" })).id as number;
      team = (await alice.Groups.create(`GBP Team ${run}`, `gbp-team-${run}`, { visibility: "private" }))
        .id as number;
    });

    it("Projects.create, show (by id and path), edit", async () => {
      const pub = await alice.Projects.create({ name: "Web", namespaceId: group, visibility: "public" });
      expect(pub).toMatchObject({ path: "web", path_with_namespace: `gbp-${run}/web`, visibility: "public" });
      made.pub = pub.id as number;
      made.priv = (await alice.Projects.create({ path: `priv-${run}`, namespaceId: group })).id as number;
      const personal = await alice.Projects.create({ name: `Own ${run}` });
      expect(personal.path_with_namespace).toBe(`${users.alice.username}/own-${run}`);
      made.personal = personal.id as number;
      expect(await alice.Projects.show(`gbp-${run}/web`)).toMatchObject({ id: made.pub });
      const edited = await alice.Projects.edit(made.pub, { description: "site", topics: ["web", "ts"] });
      expect(edited).toMatchObject({ description: "site", topics: expect.arrayContaining(["web", "ts"]) });
      expect(await refusal(bob.Projects.edit(made.pub, { description: "bob" }))).toEqual({
        status: 403,
        description: "403 Forbidden",
      });
    });

    it("a second user sees only what he may: Projects.show, Projects.all, Groups.allProjects", async () => {
      expect(await bob.Projects.show(made.pub)).toMatchObject({ id: made.pub });
      for (const id of [made.priv, made.personal])
        expect(await refusal(bob.Projects.show(id))).toEqual({
          status: 404,
          description: "404 Project Not Found",
        });
      const listed = ids(await bob.Projects.all({ search: run, perPage: 100 }));
      expect(listed).toEqual([]);
      expect(ids(await bob.Groups.allProjects(group))).toEqual([made.pub]);
      expect(ids(await alice.Groups.allProjects(group))).toEqual([made.pub, made.priv].sort((a, b) => a - b));
      expect(await bob.Projects.all({ owned: true })).toEqual([]);
    });

    it("Projects.all and Groups.allProjects with filters, offset and keyset pages", async () => {
      const owned = await alice.Projects.all({
        owned: true,
        orderBy: "id",
        sort: "asc",
        perPage: 1,
        showExpanded: true,
        maxPages: 2,
      });
      expect(ids(owned.data)).toEqual([made.pub, made.priv]);
      expect(owned.paginationInfo).toMatchObject({ total: 3, totalPages: 3, perPage: 1 });
      const keyset = await alice.Projects.all({
        owned: true,
        pagination: "keyset",
        orderBy: "id",
        sort: "desc",
        perPage: 1,
      });
      expect(keyset.map((p) => p.id)).toEqual([made.personal, made.priv, made.pub]);
      expect(ids(await alice.Projects.all({ owned: true, visibility: "private" }))).toEqual([
        made.priv,
        made.personal,
      ]);
      expect(ids(await alice.Groups.allProjects(group, { search: "web", simple: true }))).toEqual([made.pub]);
      expect(
        ids(await alice.Groups.allProjects(group, { visibility: "private", minAccessLevel: 50 })),
      ).toEqual([made.priv]);
      const byPath = await alice.Groups.allProjects(group, { orderBy: "path", sort: "desc" });
      expect(byPath.map((p) => p.path)).toEqual(["web", `priv-${run}`]);
    });

    it("stars and archive: Projects.star, unstar, archive, unarchive", async () => {
      expect(await bob.Projects.star(made.pub)).toMatchObject({ id: made.pub, star_count: 1 });
      expect(ids(await bob.Projects.all({ starred: true }))).toEqual([made.pub]);
      expect(ids(await bob.Groups.allProjects(group, { starred: true }))).toEqual([made.pub]);
      expect(await bob.Projects.unstar(made.pub)).toMatchObject({ star_count: 0 });
      expect(await alice.Projects.archive(made.priv)).toMatchObject({ archived: true });
      expect(ids(await alice.Groups.allProjects(group, { archived: false }))).toEqual([made.pub]);
      expect(ids(await alice.Groups.allProjects(group, { archived: true }))).toEqual([made.priv]);
      expect((await refusal(bob.Projects.archive(made.pub))).status).toBe(403);
      expect(await alice.Projects.unarchive(made.priv)).toMatchObject({ archived: false });
    });

    it("ProjectMembers: add, show, edit, all with includeInherited, remove", async () => {
      const added = await alice.ProjectMembers.add(made.priv, AccessLevel.REPORTER, { userId: users.bob.id });
      expect(added).toMatchObject({ id: users.bob.id, access_level: 20 });
      expect(await bob.Projects.show(made.priv)).toMatchObject({ id: made.priv });
      const edited = await alice.ProjectMembers.edit(made.priv, users.bob.id, AccessLevel.DEVELOPER, {
        expiresAt: "2999-06-30",
      });
      expect(edited).toMatchObject({ access_level: 30, expires_at: "2999-06-30" });
      expect(await alice.ProjectMembers.show(made.priv, users.bob.id)).toMatchObject({ access_level: 30 });
      expect((await alice.ProjectMembers.all(made.priv)).map((m) => m.username)).toEqual([
        users.bob.username,
      ]);
      const all = await alice.ProjectMembers.all(made.priv, { includeInherited: true });
      expect(Object.fromEntries(all.map((m) => [m.username, m.access_level]))).toEqual({
        [users.alice.username]: 50,
        [users.bob.username]: 30,
      });
      expect(
        await refusal(alice.ProjectMembers.add(made.priv, AccessLevel.GUEST, { userId: users.bob.id })),
      ).toEqual({
        status: 409,
        description: "Member already exists",
      });
      await alice.ProjectMembers.remove(made.priv, users.bob.id);
      expect(await refusal(bob.Projects.show(made.priv))).toEqual({
        status: 404,
        description: "404 Project Not Found",
      });
    });

    it("Projects.share and unshare; Groups.allSharedProjects", async () => {
      await alice.GroupMembers.add(team, AccessLevel.DEVELOPER, { userId: users.bob.id });
      const link = await alice.Projects.share(made.priv, team, AccessLevel.GUEST, {
        expiresAt: "2999-01-01",
      });
      expect(link).toMatchObject({
        project_id: made.priv,
        group_id: team,
        group_access: 10,
        expires_at: "2999-01-01",
      });
      expect(ids(await alice.Groups.allSharedProjects(team))).toEqual([made.priv]);
      expect(ids(await bob.Groups.allSharedProjects(team))).toEqual([made.priv]);
      expect(ids(await alice.Groups.allProjects(team))).toEqual([made.priv]);
      expect(ids(await alice.Groups.allProjects(team, { withShared: false }))).toEqual([]);
      // bob, a Developer of the team, reaches the project at the share's level (Guest).
      const bobs = await alice.ProjectMembers.all(made.priv, { includeInherited: true });
      expect(bobs.find((m) => m.id === users.bob.id)).toMatchObject({ access_level: 10 });
      expect(ids(await bob.Projects.all({ minAccessLevel: AccessLevel.GUEST, search: run }))).toEqual([
        made.priv,
      ]);
      expect(await refusal(alice.Projects.share(made.priv, team, AccessLevel.GUEST))).toEqual({
        status: 409,
        description: "Group already shared with this group",
      });
      await alice.Projects.unshare(made.priv, team);
      expect(await bob.Groups.allSharedProjects(team)).toEqual([]);
      expect(await refusal(alice.Projects.unshare(made.priv, team))).toEqual({
        status: 404,
        description: "404 Group Link Not Found",
      });
    });

    it("Groups.transferProject (administrators) moves a project into a group", async () => {
      expect((await refusal(alice.Groups.transferProject(team, made.pub))).status).toBe(403);
      await root.Groups.transferProject(team, made.pub);
      expect(await alice.Projects.show(made.pub)).toMatchObject({
        path_with_namespace: `gbp-team-${run}/web`,
        visibility: "private",
        namespace: expect.objectContaining({ id: team }),
      });
      expect(ids(await alice.Groups.allProjects(team))).toEqual([made.pub]);
      expect(await refusal(root.Groups.transferProject(team, made.pub))).toEqual({
        status: 400,
        description: 'Failed to transfer project {:new_namespace=>["Project is already in this namespace."]}',
      });
      // bob is a Developer of the team: the moved project is his to read now.
      expect(await bob.Projects.show(made.pub)).toMatchObject({ id: made.pub });
    });

    it("Projects.remove marks the project for deletion (ultimate)", async () => {
      expect((await refusal(bob.Projects.remove(made.personal))).status).toBe(404);
      await alice.Projects.remove(made.personal);
      expect(await alice.Projects.show(made.personal)).toMatchObject({
        marked_for_deletion_on: new Date().toISOString().slice(0, 10),
      });
    });
  });
}
