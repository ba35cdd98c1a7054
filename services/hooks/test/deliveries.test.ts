import { createHmac } from "node:crypto";
import {
  addMember,
  newGroup,
  newHook,
  newUser,
  startHooksStack,
  unique,
  waitFor,
  type Group,
  type HooksStack,
  type Received,
  type User,
} from "./support";

let stack: HooksStack;
let owner: User;

beforeAll(async () => {
  stack = await startHooksStack({
    hooksEnv: { CANOPY_HOOK_RETRY_ATTEMPTS: "3" },
    // A DELETE removes the project at once (premium and up mark it for deletion first).
    projectsEnv: { CANOPY_PLAN: "free" },
  });
  owner = await newUser(stack);
});
afterAll(() => stack?.stop());

/** A hook on `group` whose deliveries land at a path of their own. */
async function hookAt(group: Group, attributes: Record<string, unknown>) {
  const path = `/${unique("r")}`;
  const hook = await newHook(stack, group, owner, { url: stack.receiver.url + path, ...attributes });
  return { hook, path };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Standard Webhooks: v1,base64(HMAC-SHA256(secret, id.timestamp.body)). */
function signatureOk(r: Received, secret: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const expected = createHmac("sha256", key)
    .update(`${r.headers["webhook-id"]}.${r.headers["webhook-timestamp"]}.${r.body}`)
    .digest("base64");
  return String(r.headers["webhook-signature"])
    .split(" ")
    .some((s) => s === `v1,${expected}`);
}

describe("events become deliveries", () => {
  it("sends subgroup_create and subgroup_destroy to the parent's and every ancestor's hooks, never the subgroup's", async () => {
    const root = await newGroup(stack, owner);
    const parent = await newGroup(stack, owner, { parent_id: root.id });
    const atRoot = await hookAt(root, { subgroup_events: true, token: "root-token" });
    const atParent = await hookAt(parent, { subgroup_events: true });
    const notSubscribed = await hookAt(root, { subgroup_events: false });
    const child = await newGroup(stack, owner, { parent_id: parent.id });
    const atChild = await hookAt(child, { subgroup_events: true });

    const [r] = await stack.receiver.waitFor(atRoot.path, 1);
    await stack.receiver.waitFor(atParent.path, 1);
    expect(r!.headers).toMatchObject({
      "content-type": "application/json",
      "x-gitlab-event": "Subgroup Hook",
      "x-gitlab-token": "root-token",
      "x-gitlab-instance": "https://canopy.example.com",
    });
    expect(String(r!.headers["user-agent"])).toMatch(/^GitLab\//);
    expect(r!.headers["idempotency-key"]).toMatch(UUID);
    expect(r!.headers["x-gitlab-event-uuid"]).toMatch(UUID);
    expect(r!.headers["x-gitlab-webhook-uuid"]).toMatch(UUID);
    expect(signatureOk(r!, atRoot.hook.signing_secret)).toBe(true);
    expect(r!.json).toEqual({
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      updated_at: expect.stringMatching(/Z$/),
      event_name: "subgroup_create",
      name: child.name,
      path: child.path,
      full_path: child.full_path,
      group_id: child.id,
      parent_group_id: parent.id,
      parent_name: parent.name,
      parent_path: parent.path,
      parent_full_path: parent.full_path,
    });

    // Marked for deletion first (premium and up), then removed for good: the removal is the event.
    expect((await stack.gw.delete(`/api/v4/groups/${child.id}`, { token: owner.token })).status).toBe(202);
    const removed = await stack.gw.delete(
      `/api/v4/groups/${child.id}?permanently_remove=true&full_path=${encodeURIComponent(child.full_path)}`,
      { token: owner.token },
    );
    expect(removed.status).toBe(202);
    const destroys = await stack.receiver.waitFor(atRoot.path, 2, 30_000);
    expect(destroys[1]!.json).toMatchObject({ event_name: "subgroup_destroy", group_id: child.id });
    expect(stack.receiver.at(notSubscribed.path)).toHaveLength(0);
    expect(stack.receiver.at(atChild.path)).toHaveLength(0);
  });

  it("sends member events for real changes only, to the group's and its ancestors' hooks", async () => {
    const root = await newGroup(stack, owner);
    const group = await newGroup(stack, owner, { parent_id: root.id });
    const atRoot = await hookAt(root, { member_events: true });
    const atGroup = await hookAt(group, { member_events: true });
    const member = await newUser(stack);
    await addMember(stack, group, member, 30, owner);
    const [added] = await stack.receiver.waitFor(atGroup.path, 1);
    expect(added!.headers["x-gitlab-event"]).toBe("Member Hook");
    expect(added!.json).toEqual({
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
      group_name: group.name,
      group_path: group.path,
      group_id: group.id,
      user_username: member.username,
      user_name: `User ${member.username}`,
      user_email: `${member.username}@example.com`,
      user_id: member.id,
      group_access: "Developer",
      group_plan: null,
      expires_at: null,
      event_name: "user_add_to_group",
    });
    const path = `/api/v4/groups/${group.id}/members/${member.id}`;
    expect((await stack.gw.put(path, { token: owner.token, json: { access_level: 30 } })).status).toBe(200);
    expect((await stack.gw.put(path, { token: owner.token, json: { access_level: 40 } })).status).toBe(200);
    expect((await stack.gw.delete(path, { token: owner.token })).status).toBe(204);
    const all = await stack.receiver.waitFor(atGroup.path, 3);
    await stack.receiver.waitFor(atRoot.path, 3);
    // In event order, and the unchanged update sent nothing.
    expect(all.map((r) => [r.json.event_name, r.json.group_access])).toEqual([
      ["user_add_to_group", "Developer"],
      ["user_update_for_group", "Maintainer"],
      ["user_remove_from_group", "Maintainer"],
    ]);
    await new Promise((r) => setTimeout(r, 500));
    expect(stack.receiver.at(atGroup.path)).toHaveLength(3);
  });

  it("sends project_create and project_destroy with the project's owners, inherited ones included", async () => {
    const root = await newGroup(stack, owner);
    const group = await newGroup(stack, owner, { parent_id: root.id });
    // An Owner of the ancestor who shows a public e-mail: named by it.
    const shown = await newUser(stack);
    const publicEmail = `${shown.username}@example.com`;
    const put = await stack.gw.put(`/api/v4/users/${shown.id}`, {
      token: stack.rootToken,
      json: { public_email: publicEmail },
    });
    expect(put.status).toBe(200);
    await addMember(stack, root, shown, 50);
    const { path } = await hookAt(group, { project_events: true });
    const res = await stack.gw.post("/api/v4/projects", {
      token: owner.token,
      json: { name: unique("proj"), namespace_id: group.id },
    });
    expect(res.status).toBe(201);
    const project = res.body as { id: number; name: string; path: string; path_with_namespace: string };
    const [created] = await stack.receiver.waitFor(path, 1);
    expect(created!.headers["x-gitlab-event"]).toBe("Project Hook");
    // GitLab's ProjectBuilder: the "owner" of a group's project is the group (no email); owners
    // show their public email, [REDACTED] for one without, as GitLab's.
    expect(created!.json).toEqual({
      event_name: "project_create",
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      updated_at: expect.stringMatching(/Z$/),
      name: project.name,
      path: project.path,
      path_with_namespace: project.path_with_namespace,
      project_id: project.id,
      project_namespace_id: null,
      owner_name: group.name,
      owner_email: "",
      owners: [
        { name: `User ${owner.username}`, email: "[REDACTED]" },
        { name: `User ${shown.username}`, email: publicEmail },
      ],
      project_visibility: "private",
    });
    expect((await stack.gw.delete(`/api/v4/projects/${project.id}`, { token: owner.token })).status).toBe(
      202,
    );
    const all = await stack.receiver.waitFor(path, 2, 30_000);
    expect(all[1]!.json).toMatchObject({ event_name: "project_destroy", project_id: project.id });
  });
  it("renders a custom template and sends custom headers under GitLab's own, redacted in the log", async () => {
    const group = await newGroup(stack, owner);
    const { hook, path } = await hookAt(group, {
      member_events: true,
      token: "t0k",
      custom_webhook_template:
        '{"who":"{{user_username}}","what":"{{event_name}}","level":"{{group_access}}","id":{{user_id}}}',
      custom_headers: [
        { key: "X-Receiver-Key", value: "s3cret" },
        { key: "x-gitlab-event", value: "Overridden" },
      ],
    });
    const member = await newUser(stack);
    await addMember(stack, group, member, 30, owner);
    const [r] = await stack.receiver.waitFor(path, 1);
    expect(r!.json).toEqual({
      who: member.username,
      what: "user_add_to_group",
      level: "Developer",
      id: member.id,
    });
    expect(r!.headers).toMatchObject({
      "x-receiver-key": "s3cret",
      "x-gitlab-event": "Member Hook",
      "user-agent": "GitLab/17.5.0",
    });
    expect(signatureOk(r!, hook.signing_secret)).toBe(true);
    const events = `/api/v4/groups/${group.id}/hooks/${hook.id}/events`;
    await waitFor("the log row", async () => {
      const res = await stack.gw.get(events, { token: owner.token });
      return (res.body as unknown[]).length === 1;
    });
    const [log] = (await stack.gw.get(events, { token: owner.token })).body as Record<string, unknown>[];
    expect(log!.request_headers).toMatchObject({
      "X-Receiver-Key": "[REDACTED]",
      "X-Gitlab-Token": "[REDACTED]",
    });
    // The event's data is logged (a resend renders the template again), e-mails redacted.
    expect(log!.request_data).toMatchObject({ user_username: member.username, user_email: "[REDACTED]" });
  });
});

describe("retries, logs, resend, test, auto-disable", () => {
  it("retries 5xx and network failures with the same Idempotency-Key, logging every attempt", async () => {
    const group = await newGroup(stack, owner);
    const { hook, path } = await hookAt(group, { member_events: true });
    let calls = 0;
    const previous = stack.receiver.answer;
    stack.receiver.answer = (r) =>
      r.url === path && ++calls <= 2 ? { status: 503, body: "busy" } : previous(r);
    await addMember(stack, group, await newUser(stack), 10, owner);
    const attempts = await stack.receiver.waitFor(path, 3);
    stack.receiver.answer = previous;
    expect(new Set(attempts.map((a) => a.headers["idempotency-key"])).size).toBe(1);
    expect(new Set(attempts.map((a) => a.headers["webhook-id"])).size).toBe(1);
    expect(new Set(attempts.map((a) => a.headers["x-gitlab-webhook-uuid"])).size).toBe(3);

    const events = `/api/v4/groups/${group.id}/hooks/${hook.id}/events`;
    await waitFor("three log rows", async () => {
      const res = await stack.gw.get(events, { token: owner.token });
      return (res.body as unknown[]).length === 3;
    });
    const res = await stack.gw.get(events, { token: owner.token });
    const logs = res.body as Record<string, unknown>[];
    expect(logs.map((l) => l.response_status)).toEqual(["200", "503", "503"]);
    expect(logs[0]).toMatchObject({
      trigger: "member_hooks",
      url: stack.receiver.url + path,
      response_body: "ok",
    });
    expect(logs[0]!.request_data).toMatchObject({ user_email: "[REDACTED]" });
    expect(Object.keys(logs[0]!)).toEqual([
      "id",
      "url",
      "trigger",
      "request_headers",
      "request_data",
      "response_headers",
      "response_body",
      "execution_duration",
      "response_status",
      "created_at",
    ]);
    const failed = await stack.gw.get(`${events}?status=server_failure`, { token: owner.token });
    expect((failed.body as unknown[]).length).toBe(2);
    const ok = await stack.gw.get(`${events}?status=successful,404`, { token: owner.token });
    expect((ok.body as unknown[]).length).toBe(1);
    const bad = await stack.gw.get(`${events}?status=teapot`, { token: owner.token });
    expect([bad.status, bad.body]).toEqual([400, { error: "status does not have a valid value" }]);
    const tooMany = await stack.gw.get(`${events}?per_page=21`, { token: owner.token });
    expect([tooMany.status, tooMany.body]).toEqual([400, { error: "per_page is invalid" }]);

    // Resend: the logged data again, with the delivery's Idempotency-Key.
    const logId = logs[2]!.id;
    const resent = await stack.gw.post(`${events}/${logId}/resend`, { token: owner.token });
    expect([resent.status, resent.body]).toEqual([201, { response_status: 200 }]);
    const after = await stack.receiver.waitFor(path, 4);
    expect(after[3]!.headers["idempotency-key"]).toBe(attempts[0]!.headers["idempotency-key"]);
    expect(after[3]!.json.user_email).toBe("[REDACTED]");
    const unknown = await stack.gw.post(`${events}/999999999/resend`, { token: owner.token });
    expect([unknown.status, unknown.body]).toEqual([404, { message: "404 Not found" }]);
  });

  it("honours Retry-After", async () => {
    const group = await newGroup(stack, owner);
    const { path } = await hookAt(group, { member_events: true });
    let first = true;
    const previous = stack.receiver.answer;
    stack.receiver.answer = (r) => {
      if (r.url !== path || !first) return previous(r);
      first = false;
      return { status: 429, headers: { "Retry-After": "2" } };
    };
    await addMember(stack, group, await newUser(stack), 10, owner);
    const [a, b] = await stack.receiver.waitFor(path, 2);
    stack.receiver.answer = previous;
    expect(b!.at - a!.at).toBeGreaterThanOrEqual(1_900);
  });

  it("answers the test endpoint as GitLab does and re-enables a disabled hook on success", async () => {
    const group = await newGroup(stack, owner);
    const { hook, path } = await hookAt(group, { member_events: true });
    const test = (trigger: string) =>
      stack.gw.post(`/api/v4/groups/${group.id}/hooks/${hook.id}/test/${trigger}`, { token: owner.token });
    const none = await test("push_events");
    expect([none.status, none.body]).toEqual([
      422,
      { message: "Ensure the group has a project with commits." },
    ]);
    const project = await stack.gw.post("/api/v4/projects", {
      token: owner.token,
      json: { name: unique("p"), namespace_id: group.id },
    });
    expect(project.status).toBe(201);
    await waitFor("the project copy", async () => {
      const { rows } = await stack.db.query("SELECT 1 FROM projects WHERE namespace_id = $1", [group.id]);
      return rows.length > 0;
    });
    const bad = await test("member_events");
    expect([bad.status, bad.body]).toEqual([400, { error: "trigger does not have a valid value" }]);

    // Four failed deliveries (each after its last attempt) disable the hook for a minute.
    const previous = stack.receiver.answer;
    stack.receiver.answer = (r) => (r.url === path ? { status: 500, body: "down" } : previous(r));
    for (let i = 0; i < 4; i++) await addMember(stack, group, await newUser(stack), 10, owner);
    await stack.receiver.waitFor(path, 12, 30_000);
    await waitFor("the hook disabled", async () => {
      const res = await stack.gw.get(`/api/v4/groups/${group.id}/hooks/${hook.id}`, { token: owner.token });
      return (res.body as { alert_status: string }).alert_status === "temporarily_disabled";
    });
    const shown = await stack.gw.get(`/api/v4/groups/${group.id}/hooks/${hook.id}`, { token: owner.token });
    expect((shown.body as { disabled_until: string }).disabled_until).toMatch(/Z$/);
    // While disabled, new events are dropped (GitLab), and a resend is refused.
    const received = stack.receiver.at(path).length;
    await addMember(stack, group, await newUser(stack), 10, owner);
    const failing = await test("push_events");
    expect([failing.status, failing.body]).toEqual([422, { message: "down" }]);
    expect(stack.receiver.at(path).length).toBe(received + 1);

    stack.receiver.answer = previous;
    const ok = await test("push_events");
    expect([ok.status, ok.body]).toEqual([201, { message: "201 Created" }]);
    const last = stack.receiver.at(path).at(-1)!;
    expect(last.headers["x-gitlab-event"]).toBe("Push Hook");
    const enabled = await stack.gw.get(`/api/v4/groups/${group.id}/hooks/${hook.id}`, { token: owner.token });
    expect(enabled.body).toMatchObject({ alert_status: "executable", disabled_until: null });
  });

  it("never sends a delivery twice with two replicas working the same table", async () => {
    const second = await stack.addHooksReplica();
    try {
      const group = await newGroup(stack, owner);
      const { path } = await hookAt(group, { member_events: true });
      // One at a time: fifteen password hashes at once outrun auth's deadline on two shared cores.
      const users: User[] = [];
      for (let i = 0; i < 15; i++) users.push(await newUser(stack));
      for (const u of users) await addMember(stack, group, u, 10, owner);
      const got = await stack.receiver.waitFor(path, 15, 30_000);
      await new Promise((r) => setTimeout(r, 500));
      expect(stack.receiver.at(path)).toHaveLength(15);
      expect(new Set(got.map((r) => r.headers["idempotency-key"])).size).toBe(15);
      // One hook's deliveries in event order.
      expect(got.map((r) => r.json.user_id)).toEqual(users.map((u) => u.id));
    } finally {
      await second.stop();
      stack.hooksReplicas.splice(stack.hooksReplicas.indexOf(second), 1);
    }
  });
});
