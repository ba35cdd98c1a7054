// python-gitlab (Debian's python3-gitlab, unchanged) drives group webhooks through the stack:
// e2e/python/hooks_e2e.py manages hooks and makes a subgroup and a member; this suite's receiver on
// 127.0.0.1 must get a Subgroup Hook and a Member Hook from those, with GitLab's headers, payloads
// and signature, each delivery exactly once (the stack runs with one replica and with two).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { allowLocalHooks, expectGitlabHeaders, HookReceiver } from "../support/hook-receiver";
import { runScenarios } from "../support/python-gitlab";
import type { Session } from "../support/session";

const SCENARIOS = [
  "owner_group_and_project",
  "hooks_crud",
  "delivery_hook",
  "subgroup_and_member",
  "test_trigger",
];

interface Facts {
  group: { id: number; name: string; path: string; full_path: string };
  subgroup: { id: number; name: string; path: string; full_path: string };
  member: { id: number; username: string; name: string };
  hook: { id: number; token: string; signing_secret: string };
  project_id: number;
}

const XMLSCHEMA = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

export function pythonGitlabHooks(session: Session) {
  describe("group webhooks: python-gitlab", () => {
    let folder: string;
    let receiver: HookReceiver;
    let restore: (() => Promise<void>) | undefined;
    let facts: Facts;

    beforeAll(async () => {
      folder = mkdtempSync(path.join(tmpdir(), "canopy-python-hooks-"));
      receiver = await HookReceiver.start();
      restore = await allowLocalHooks(session, receiver.url);
    }, 90_000);
    afterAll(async () => {
      await restore?.();
      await receiver?.stop();
      rmSync(folder, { recursive: true, force: true });
    });

    it("group.hooks create, list, get, save, delete; a hook on the receiver; a subgroup, a member, a test", async () => {
      const { code, report, stderr } = await runScenarios(session, folder, "hooks_e2e.py", [], {
        CANOPY_HOOK_RECEIVER: receiver.url,
      });
      expect({ code, report: { ...report, facts: undefined }, stderr }).toEqual({
        code: 0,
        report: { ok: true, passed: SCENARIOS, python_gitlab: expect.stringMatching(/^3\./) },
        stderr: "",
      });
      facts = (report as unknown as { facts: Facts }).facts;
    }, 150_000);

    const sent = (event: string) => ({
      event,
      token: facts.hook.token,
      instance: session.stack.url,
      secret: facts.hook.signing_secret,
    });

    it("the test trigger's Push Hook arrived while POST .../test/push_events waited", () => {
      const push = receiver.received.find(
        (d) => d.path === "/py-deliveries" && d.json.object_kind === "push",
      );
      expect(push).toBeDefined();
      expectGitlabHeaders(push!, sent("Push Hook"));
      expect(push!.json).toMatchObject({ event_name: "push", project_id: facts.project_id });
    });

    it("a Subgroup Hook for the subgroup python-gitlab made", async () => {
      const d = await receiver.first(
        "/py-deliveries",
        "subgroup_create",
        (r) => r.json.group_id === facts.subgroup.id,
      );
      expectGitlabHeaders(d, sent("Subgroup Hook"));
      const { group, subgroup } = facts;
      expect(d.json).toEqual({
        created_at: XMLSCHEMA,
        updated_at: XMLSCHEMA,
        event_name: "subgroup_create",
        name: subgroup.name,
        path: subgroup.path,
        full_path: subgroup.full_path,
        group_id: subgroup.id,
        parent_group_id: group.id,
        parent_name: group.name,
        parent_path: group.path,
        parent_full_path: group.full_path,
      });
    }, 90_000);

    it("a Member Hook for the member python-gitlab added", async () => {
      const { group, member } = facts;
      const d = await receiver.first(
        "/py-deliveries",
        "user_add_to_group",
        (r) => r.json.event_name === "user_add_to_group" && r.json.user_id === member.id,
      );
      expectGitlabHeaders(d, sent("Member Hook"));
      expect(d.json).toEqual({
        created_at: XMLSCHEMA,
        updated_at: XMLSCHEMA,
        group_name: group.name,
        group_path: group.path,
        group_id: group.id,
        user_username: member.username,
        user_name: member.name,
        user_email: `${member.username}@example.com`,
        user_id: member.id,
        group_access: "Developer",
        group_plan: null,
        expires_at: null,
        event_name: "user_add_to_group",
      });
    }, 90_000);

    it("every delivery arrived exactly once (one request per Idempotency-Key)", () => {
      const times = receiver.timesByKey("/py-deliveries");
      expect(Object.values(times).filter((n) => n !== 1)).toEqual([]);
      expect(Object.keys(times).length).toBeGreaterThanOrEqual(3);
    });
  });
}
