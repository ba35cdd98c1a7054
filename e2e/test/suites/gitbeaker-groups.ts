// gitbeaker, unchanged, drives the Groups API: groups, subgroups and descendants, members, custom
// attributes, push rules, sharing, transfer, deletion and restore, with offset and keyset pages.
import { AccessLevel, Gitlab } from "@gitbeaker/rest";
import { createToken, createUser, unique } from "../support/api";
import { refusal, type Client } from "../support/gitbeaker";
import type { Session } from "../support/session";

const ids = (groups: { id: unknown }[]) => groups.map((g) => g.id as number);
const todayUtc = () => new Date().toISOString().slice(0, 10);

export function gitbeakerGroups(session: Session) {
  describe("gitbeaker against the Groups API", () => {
    let root: Client;
    let alice: Client;
    let bob: Client;
    const users = {} as Record<"alice" | "bob", { id: number; username: string }>;
    const run = unique("");
    const topPath = `gb-top-${run}`;
    let top: number;
    let sub: number;
    let leaf: number;
    let team: number;

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
    });

    it("Groups.create makes a top-level group and subgroups under it (parentId)", async () => {
      const made = await alice.Groups.create(`GB Top ${run}`, topPath, { visibility: "private" });
      expect(made).toMatchObject({
        path: topPath,
        full_path: topPath,
        parent_id: null,
        visibility: "private",
      });
      top = made.id as number;
      const child = await alice.Groups.create("Sub", "sub", { parentId: top });
      expect(child).toMatchObject({ full_path: `${topPath}/sub`, parent_id: top });
      sub = child.id as number;
      const grandchild = await alice.Groups.create("Leaf", `leaf-${run}`, { parentId: sub });
      leaf = grandchild.id as number;
    });

    it("Groups.show finds a group by id and by full path", async () => {
      const byId = await alice.Groups.show(sub);
      const byPath = await alice.Groups.show(`${topPath}/sub`);
      expect(byPath.id).toBe(sub);
      expect(byId).toMatchObject({ name: "Sub", full_name: `GB Top ${run} / Sub` });
    });

    it("Groups.edit changes the description and visibility", async () => {
      const edited = await alice.Groups.edit(top, { description: "by gitbeaker", visibility: "internal" });
      expect(edited).toMatchObject({ id: top, description: "by gitbeaker", visibility: "internal" });
      expect(await alice.Groups.show(top)).toMatchObject({
        description: "by gitbeaker",
        visibility: "internal",
      });
    });

    it("Groups.all and Groups.search page by offset and by keyset", async () => {
      const prefix = `gb-many-${run}`;
      const made: number[] = [];
      for (let i = 0; i < 12; i++) {
        made.push(
          (await alice.Groups.create(`${prefix}-${String(i).padStart(2, "0")}`, `${prefix}-${i}`))
            .id as number,
        );
      }
      // Offset: every page followed through Link rel="next".
      const all = await alice.Groups.all({ search: prefix, allAvailable: true, perPage: 5 });
      expect(ids(all).sort((a, b) => a - b)).toEqual(made);
      const twoPages = await alice.Groups.all({
        search: prefix,
        perPage: 5,
        maxPages: 2,
        showExpanded: true,
      });
      expect(twoPages.data).toHaveLength(10);
      expect(twoPages.paginationInfo).toEqual({
        total: 12,
        next: 3,
        current: 2,
        previous: 1,
        perPage: 5,
        totalPages: 3,
      });
      // Keyset: the cursor in rel="next", in name order.
      const keyset = await alice.Groups.all({
        search: prefix,
        pagination: "keyset",
        orderBy: "name",
        sort: "asc",
        perPage: 5,
      });
      expect(ids(keyset)).toEqual(made);
      const keysetTwo = await alice.Groups.all({
        search: prefix,
        pagination: "keyset",
        orderBy: "name",
        sort: "desc",
        perPage: 5,
        maxPages: 2,
      });
      expect(ids(keysetTwo)).toEqual([...made].reverse().slice(0, 10));
      expect(ids(await alice.Groups.search(prefix)).sort((a, b) => a - b)).toEqual(made);
      // bob sees none of alice's private groups.
      expect(await bob.Groups.search(prefix)).toEqual([]);
    });

    it("Groups.allSubgroups and Groups.allDescendantGroups", async () => {
      expect(ids(await alice.Groups.allSubgroups(top))).toEqual([sub]);
      const descendants = await alice.Groups.allDescendantGroups(top, {
        pagination: "keyset",
        orderBy: "id",
        sort: "asc",
        perPage: 1,
      });
      expect(ids(descendants)).toEqual([sub, leaf]);
      const onePage = await alice.Groups.allDescendantGroups(top, { perPage: 1, maxPages: 1 });
      expect(onePage).toHaveLength(1);
    });

    it("GroupMembers: add, show, edit, all with includeInherited, remove", async () => {
      const added = await alice.GroupMembers.add(top, AccessLevel.DEVELOPER, { userId: users.bob.id });
      expect(added).toMatchObject({ id: users.bob.id, username: users.bob.username, access_level: 30 });
      expect(await alice.GroupMembers.show(top, users.bob.id)).toMatchObject({ access_level: 30 });
      const edited = await alice.GroupMembers.edit(top, users.bob.id, AccessLevel.MAINTAINER, {
        expiresAt: "2999-01-31",
      });
      expect(edited).toMatchObject({ access_level: 40, expires_at: "2999-01-31" });
      expect(await refusal(alice.GroupMembers.add(top, AccessLevel.GUEST, { userId: users.bob.id }))).toEqual(
        {
          status: 409,
          description: "Member already exists",
        },
      );

      const direct = await alice.GroupMembers.all(sub);
      expect(direct.map((m) => m.username)).toEqual([users.alice.username]);
      const inherited = await alice.GroupMembers.all(sub, { includeInherited: true });
      expect(Object.fromEntries(inherited.map((m) => [m.username, m.access_level]))).toEqual({
        [users.alice.username]: 50,
        [users.bob.username]: 40,
      });
      expect(await alice.GroupMembers.show(leaf, users.bob.id, { includeInherited: true })).toMatchObject({
        access_level: 40,
      });
      expect(await bob.Groups.show(leaf)).toMatchObject({ id: leaf });

      await alice.GroupMembers.remove(top, users.bob.id);
      expect(await refusal(alice.GroupMembers.show(top, users.bob.id))).toEqual({
        status: 404,
        description: "404 Not found",
      });
      expect(await refusal(bob.Groups.show(leaf))).toEqual({
        status: 404,
        description: "404 Group Not Found",
      });
    });

    it("GroupCustomAttributes: set, show, all, remove (administrators only)", async () => {
      expect(await root.GroupCustomAttributes.set(top, "tier", `gold-${run}`)).toEqual({
        key: "tier",
        value: `gold-${run}`,
      });
      await root.GroupCustomAttributes.set(top, "team", "core");
      expect(await root.GroupCustomAttributes.show(top, "tier")).toEqual({
        key: "tier",
        value: `gold-${run}`,
      });
      const listed = await root.GroupCustomAttributes.all(top);
      expect(listed.sort((a, b) => a.key.localeCompare(b.key))).toEqual([
        { key: "team", value: "core" },
        { key: "tier", value: `gold-${run}` },
      ]);
      await root.GroupCustomAttributes.remove(top, "team");
      expect(await refusal(root.GroupCustomAttributes.show(top, "team"))).toEqual({
        status: 404,
        description: "404 Not found",
      });
      expect((await refusal(alice.GroupCustomAttributes.all(top))).status).toBe(403);
    });

    it("Groups.share and Groups.unshare", async () => {
      team = (await alice.Groups.create(`GB Team ${run}`, `gb-team-${run}`)).id as number;
      await alice.GroupMembers.add(team, AccessLevel.OWNER, { userId: users.bob.id });
      const shared = await alice.Groups.share(top, team, AccessLevel.REPORTER, { expiresAt: "2999-12-31" });
      expect(shared.shared_with_groups).toEqual([
        expect.objectContaining({ group_id: team, group_access_level: 20, expires_at: "2999-12-31" }),
      ]);
      // bob, an Owner of the invited group, reaches the shared group's subgroups at the link's level.
      expect(await alice.GroupMembers.show(leaf, users.bob.id, { includeInherited: true })).toMatchObject({
        access_level: 20,
      });
      expect(await bob.Groups.show(leaf)).toMatchObject({ id: leaf });
      expect((await refusal(alice.Groups.share(top, team, AccessLevel.DEVELOPER, {}))).status).toBe(409);

      await alice.Groups.unshare(top, team, {});
      expect((await alice.Groups.show(top)).shared_with_groups).toEqual([]);
      expect(await refusal(bob.Groups.show(leaf))).toEqual({
        status: 404,
        description: "404 Group Not Found",
      });
      expect(await refusal(alice.Groups.unshare(top, team, {}))).toEqual({
        status: 404,
        description: "404 Group Link Not Found",
      });
    });

    it("Groups.transfer moves a group under another and back to the top", async () => {
      await alice.Groups.transfer(leaf, { groupId: team });
      expect(await alice.Groups.show(leaf)).toMatchObject({
        full_path: `gb-team-${run}/leaf-${run}`,
        parent_id: team,
      });
      expect(await refusal(alice.Groups.transfer(leaf, { groupId: team }))).toEqual({
        status: 400,
        description: "Transfer failed: Group is already associated to the parent group.",
      });
      await alice.Groups.transfer(leaf);
      expect(await alice.Groups.show(leaf)).toMatchObject({ full_path: `leaf-${run}`, parent_id: null });
    });

    it("Groups.remove marks the group (ultimate); Groups.restore clears the mark", async () => {
      await alice.Groups.remove(leaf);
      expect(await alice.Groups.show(leaf)).toMatchObject({ marked_for_deletion_on: todayUtc() });
      expect(await refusal(alice.Groups.remove(leaf))).toEqual({
        status: 400,
        description: "Group has been already marked for deletion",
      });
      await alice.Groups.restore(leaf);
      expect(await alice.Groups.show(leaf)).toMatchObject({ marked_for_deletion_on: null });
      expect(await refusal(bob.Groups.restore(leaf))).toEqual({
        status: 404,
        description: "404 Group Not Found",
      });
    });

    it("GroupPushRules: create, show, edit, remove", async () => {
      const made = await alice.GroupPushRules.create(top, { commitMessageRegex: "^JIRA-", maxFileSize: 20 });
      expect(made).toMatchObject({
        commit_message_regex: "^JIRA-",
        max_file_size: 20,
        deny_delete_tag: false,
      });
      const edited = await alice.GroupPushRules.edit(top, { denyDeleteTag: true });
      expect(edited).toMatchObject({ commit_message_regex: "^JIRA-", deny_delete_tag: true });
      expect(await alice.GroupPushRules.show(top)).toMatchObject({
        deny_delete_tag: true,
        max_file_size: 20,
      });
      expect(await refusal(alice.GroupPushRules.create(top, { denyDeleteTag: true }))).toEqual({
        status: 422,
        description: "Group push rule exists, try updating",
      });
      expect((await refusal(bob.GroupPushRules.show(top))).status).toBe(404);
      await alice.GroupPushRules.remove(top);
      expect(await refusal(alice.GroupPushRules.show(top))).toEqual({
        status: 404,
        description: "404 Not Found",
      });
    });

    it("refusals: someone else's private group, a taken path, a bad token", async () => {
      expect(await refusal(bob.Groups.show(`${topPath}/sub`))).toEqual({
        status: 404,
        description: "404 Group Not Found",
      });
      expect(await refusal(bob.Groups.create("Again", topPath))).toEqual({
        status: 400,
        description: 'Failed to save group {:path=>["has already been taken"]}',
      });
      const stranger = new Gitlab({ host: session.stack.url, token: `glpat-${unique("bad")}0000000000` });
      expect(await refusal(stranger.Groups.all())).toEqual({ status: 401, description: "401 Unauthorized" });
    });
  });
}
