// gitbeaker, unchanged, drives LDAP group links and sync (GroupLDAPLinks: add, all, sync, remove)
// against a stack whose CANOPY_LDAP_SERVERS points at a throwaway slapd.
import { AccessLevel, Gitlab } from "@gitbeaker/rest";
import type { Slapd } from "@canopy/kit/testing";
import { createToken, createUser, PROPAGATION_MS, unique } from "../support/api";
import { directoryTeam, passwordGrant } from "../support/directory";
import { refusal, type Client } from "../support/gitbeaker";
import type { Session } from "../support/session";

/** Asks for syncs (one asked while another runs queues nothing) until the members are `expected`. */
async function syncedTo(client: Client, groupId: number, expected: Record<number, number>) {
  const deadline = Date.now() + PROPAGATION_MS;
  let members: Record<number, number> = {};
  while (Date.now() < deadline) {
    await client.GroupLDAPLinks.sync(groupId);
    const list = await client.GroupMembers.all(groupId);
    members = Object.fromEntries(list.map((m) => [m.id, Number(m.access_level)]));
    if (JSON.stringify(members) === JSON.stringify(expected)) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  expect(members).toEqual(expected);
}

export function ldapWithGitbeaker(session: Session, slapd: () => Slapd) {
  describe("gitbeaker: GroupLDAPLinks", () => {
    it("signs people in from the directory, syncs a linked group, drops a leaver on the next sync", async () => {
      const { url, rootToken } = session.stack;
      const team = await directoryTeam(slapd(), "gb", 2);
      // Each person signs in with their directory password: the first sign-in makes their user.
      const people = [];
      for (const p of team.people) {
        const client = new Gitlab({ host: url, oauthToken: await passwordGrant(url, p.uid, p.password) });
        const me = await client.Users.showCurrentUser();
        expect(me.username).toBe(p.uid);
        people.push({ ...p, id: me.id });
      }
      const ownerUser = await createUser(url, rootToken, session.secrets);
      const owner = new Gitlab({
        host: url,
        token: (await createToken(url, rootToken, ownerUser.id, session.secrets)).token,
      });
      const path = unique("gb-ldap-");
      const group = await owner.Groups.create(path, path, { visibility: "private" });

      const link = await owner.GroupLDAPLinks.add(group.id, AccessLevel.MAINTAINER, "ldapmain", {
        cn: team.cn,
      });
      expect(link).toMatchObject({ cn: team.cn, group_access: 40, provider: "ldapmain" });
      expect(await owner.GroupLDAPLinks.all(group.id, {})).toEqual([
        { cn: team.cn, group_access: 40, provider: "ldapmain", filter: null },
      ]);
      const expected: Record<number, number> = { [ownerUser.id]: 50 };
      for (const p of people) expected[p.id] = 40;
      await syncedTo(owner, group.id, expected);

      const leaver = people[1]!;
      await slapd().removeMember(team.cn, leaver.dn);
      delete expected[leaver.id];
      await syncedTo(owner, group.id, expected);

      await owner.GroupLDAPLinks.remove(group.id, "ldapmain", { cn: team.cn });
      expect(await refusal(owner.GroupLDAPLinks.all(group.id, {}))).toEqual({
        status: 404,
        description: "No linked LDAP groups found",
      });
    });
  });
}
