import { projectMembers } from "@canopy/protos";
import { ANONYMOUS, startHarness, unique, type Harness } from "./support";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

const ids = (res: { projects: { id: number }[] }) => res.projects.map((p) => p.id);

// GET /projects walks "public", "internal" and "reached" apart and pages through their union
// (store/project-lists.ts): every page, by offset or keyset, must be the one list in its order.
describe("a list visible through several paths pages as one list", () => {
  it("gives each caller their rows newest first, by offset and by keyset, with the total", async () => {
    const owner = await h.newUser();
    const other = await h.newUser();
    const tag = unique("vis");
    const made: { id: number; visibility: string }[] = [];
    for (let i = 0; i < 7; i++) {
      const visibility = ["public", "internal", "private"][i % 3]!;
      const res = await h.newProject(owner, 0, { name: `${tag} ${i}`, path: `${tag}-${i}`, visibility });
      made.push({ id: res.id, visibility });
    }
    const newestFirst = (seen: string[]) =>
      made
        .filter((p) => seen.includes(p.visibility))
        .map((p) => p.id)
        .reverse();
    const callers = [
      { actor: owner.actor, want: newestFirst(["public", "internal", "private"]) },
      { actor: other.actor, want: newestFirst(["public", "internal"]) },
      { actor: ANONYMOUS, want: newestFirst(["public"]) },
    ];
    for (const { actor, want } of callers) {
      const byOffset: number[] = [];
      for (let page = 1; page <= 4; page++) {
        const res = await h.rpc.listProjects({ actor, search: tag, page: { page, perPage: 2 } });
        byOffset.push(...ids(res));
        expect(res.page).toMatchObject({ total: want.length, totalCapped: false });
      }
      expect(byOffset).toEqual(want);
      const byKeyset: number[] = [];
      let cursor = "";
      do {
        const res = await h.rpc.listProjects({
          actor,
          search: tag,
          page: { perPage: 2, keyset: true, cursor },
        });
        byKeyset.push(...ids(res));
        cursor = res.page!.nextCursor;
      } while (cursor);
      expect(byKeyset).toEqual(want);
      const oldestFirst = await h.rpc.listProjects({
        actor,
        search: tag,
        orderBy: "id",
        sort: "asc",
        page: { page: 1, perPage: 100 },
      });
      expect(ids(oldestFirst)).toEqual([...want].reverse());
    }
  });

  it("reaches private projects through nested memberships and a project membership, each once", async () => {
    const owner = await h.newUser();
    const member = await h.newUser();
    const external = await h.newUser({ external: true });
    const stranger = await h.newUser();
    const root = await h.newGroup(owner, { visibility: "private" });
    const sub = await h.newGroup(owner, { visibility: "private" }, root.id);
    const elsewhere = await h.newGroup(owner, { visibility: "private" });
    // Two paths to the subgroup's projects (its parent's membership and its own): listed once.
    await h.addMember(root.id, member, 30);
    await h.addMember(sub.id, member, 40);
    await h.addMember(elsewhere.id, external, 10);
    const tag = unique("reach");
    const made = async (namespaceId: number, name: string, visibility: string) =>
      (await h.newProject(owner, namespaceId, { name: `${tag} ${name}`, path: `${tag}-${name}`, visibility }))
        .id;
    const inRoot = await made(root.id, "root", "private");
    const inSub = await made(sub.id, "sub", "private");
    const open = await made(0, "open", "public");
    const hidden = await made(elsewhere.id, "hidden", "private");
    const inside = await made(0, "inside", "internal");
    const byMembership = await made(elsewhere.id, "mine", "private");
    await h.projectsService.client(projectMembers.ProjectMembersServiceService).addProjectMember(
      projectMembers.AddProjectMemberRequest.fromPartial({
        actor: h.admin,
        project: { id: byMembership },
        userId: member.user.id,
        accessLevel: 20,
      }),
    );
    const callers = [
      { actor: member.actor, want: [byMembership, inside, open, inSub, inRoot] },
      { actor: external.actor, want: [byMembership, hidden, open] },
      { actor: stranger.actor, want: [inside, open] },
    ];
    for (const { actor, want } of callers) {
      const byOffset: number[] = [];
      for (let page = 1; page <= 3; page++)
        byOffset.push(...ids(await h.rpc.listProjects({ actor, search: tag, page: { page, perPage: 2 } })));
      expect(byOffset).toEqual(want);
      const byId: number[] = [];
      let cursor = "";
      do {
        const res = await h.rpc.listProjects({
          actor,
          search: tag,
          orderBy: "id",
          sort: "asc",
          page: { perPage: 2, keyset: true, cursor },
        });
        byId.push(...ids(res));
        cursor = res.page!.nextCursor;
      } while (cursor);
      expect(byId).toEqual([...want].sort((a, b) => a - b));
    }
  });
});
