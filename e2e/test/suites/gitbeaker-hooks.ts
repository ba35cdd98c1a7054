// gitbeaker, unchanged, drives group webhooks: GroupHooks add, all, show, edit, remove, and a hook
// on this suite's receiver gets the Subgroup Hook of a subgroup made with Groups.create, once.
import { Gitlab } from "@gitbeaker/rest";
import { createToken, createUser, unique } from "../support/api";
import { refusal, type Client } from "../support/gitbeaker";
import { allowLocalHooks, expectGitlabHeaders, HookReceiver } from "../support/hook-receiver";
import type { Session } from "../support/session";

export function gitbeakerHooks(session: Session) {
  describe("group webhooks: gitbeaker GroupHooks", () => {
    let receiver: HookReceiver;
    let restore: (() => Promise<void>) | undefined;
    let owner: Client;
    let maintainer: Client;
    let group: { id: number; name: string; path: string; full_path: string };
    const run = unique("");

    beforeAll(async () => {
      receiver = await HookReceiver.start();
      restore = await allowLocalHooks(session, receiver.url);
      const { url, rootToken } = session.stack;
      const [a, b] = [
        await createUser(url, rootToken, session.secrets),
        await createUser(url, rootToken, session.secrets),
      ];
      owner = new Gitlab({
        host: url,
        token: (await createToken(url, rootToken, a.id, session.secrets)).token,
      });
      maintainer = new Gitlab({
        host: url,
        token: (await createToken(url, rootToken, b.id, session.secrets)).token,
      });
      group = (await owner.Groups.create(`GBH ${run}`, `gbh-${run}`, {
        visibility: "private",
      })) as typeof group;
      await owner.GroupMembers.add(group.id, 40, { userId: b.id });
    }, 90_000);
    afterAll(async () => {
      await restore?.();
      await receiver?.stop();
    });

    it("GroupHooks.add, all, show, edit, remove; a Maintainer is refused", async () => {
      const token = session.secrets.add(`tok-${unique("")}${unique("")}`);
      const made = await owner.GroupHooks.add(group.id, `${receiver.url}/gb-crud`, {
        token,
        pushEvents: false,
      });
      expect(made).toMatchObject({ url: `${receiver.url}/gb-crud`, group_id: group.id, push_events: false });
      expect(made).not.toHaveProperty("token");
      session.secrets.add(String(made.signing_secret));
      const hookId = made.id as number;
      expect((await owner.GroupHooks.all(group.id)).map((h) => h.id)).toEqual([hookId]);
      expect(await owner.GroupHooks.show(group.id, hookId)).toMatchObject({
        id: hookId,
        subgroup_events: false,
      });
      const edited = await owner.GroupHooks.edit(group.id, hookId, `${receiver.url}/gb-moved`, {
        subgroupEvents: true,
        token,
      });
      expect(edited).toMatchObject({ id: hookId, url: `${receiver.url}/gb-moved`, subgroup_events: true });
      expect(await owner.GroupHooks.show(group.id, hookId)).toMatchObject({
        url: `${receiver.url}/gb-moved`,
      });
      expect(await refusal(maintainer.GroupHooks.all(group.id))).toEqual({
        status: 403,
        description: "403 Forbidden",
      });
      await owner.GroupHooks.remove(group.id, hookId);
      expect(await refusal(owner.GroupHooks.show(group.id, hookId))).toEqual({
        status: 404,
        description: "404 Not found",
      });
      expect(await owner.GroupHooks.all(group.id)).toEqual([]);
    });

    it("a Subgroup Hook reaches the receiver exactly once when Groups.create makes a subgroup", async () => {
      const token = session.secrets.add(`tok-${unique("")}${unique("")}`);
      const hook = await owner.GroupHooks.add(group.id, `${receiver.url}/gb-deliveries`, {
        token,
        pushEvents: false,
        subgroupEvents: true,
      });
      const secret = session.secrets.add(String(hook.signing_secret));
      const sub = await owner.Groups.create(`GBH Sub ${run}`, `gbh-sub-${run}`, { parentId: group.id });
      const d = await receiver.first("/gb-deliveries", "subgroup_create", (r) => r.json.group_id === sub.id);
      expectGitlabHeaders(d, { event: "Subgroup Hook", token, instance: session.stack.url, secret });
      expect(d.json).toMatchObject({
        event_name: "subgroup_create",
        group_id: sub.id,
        full_path: `gbh-${run}/gbh-sub-${run}`,
        parent_group_id: group.id,
        parent_full_path: group.full_path,
      });
      expect(receiver.timesByKey("/gb-deliveries")).toEqual({ [String(d.headers["idempotency-key"])]: 1 });
    }, 90_000);
  });
}
