import {
  buildTestPayload,
  HOOK_TRIGGERS,
  renderCustomTemplate,
  TEST_TRIGGERS,
  ARRAY_ACCESS_MESSAGE,
  type HookGroup,
  type HookProject,
  type HookUser,
  type TestPayloadInput,
} from "../../src/payloads";

const group: HookGroup = {
  id: 5,
  name: "Platform",
  path: "platform",
  fullPath: "platform",
  createdAt: new Date("2025-01-01T00:00:00Z"),
  updatedAt: new Date("2025-01-01T00:00:00Z"),
};
const project: HookProject = {
  id: 9,
  name: "API",
  path: "api",
  pathWithNamespace: "platform/api",
  visibility: "internal",
  createdAt: new Date("2025-01-02T00:00:00Z"),
  updatedAt: new Date("2025-01-02T00:00:00Z"),
};
const user: HookUser = {
  id: 1,
  username: "root",
  name: "Admin",
  email: "root@private.example",
  publicEmail: null,
};
const input = (trigger: string, extra: Partial<TestPayloadInput> = {}): TestPayloadInput => ({
  trigger,
  group,
  project,
  user,
  instanceUrl: "https://canopy.example.com/",
  now: new Date("2026-03-01T12:00:00.000Z"),
  ...extra,
});

describe("the test endpoint's triggers", () => {
  it("refuse an unknown trigger, and the group-only ones, with Grape's 400", () => {
    for (const trigger of ["xyz", "member_events", "subgroup_events", "project_events", "push_hooks"]) {
      expect(buildTestPayload(input(trigger))).toEqual({
        ok: false,
        status: 400,
        body: { error: "trigger does not have a valid value" },
      });
    }
  });

  it("answer 422 when the group has no project", () => {
    expect(buildTestPayload(input("push_events", { project: null }))).toEqual({
      ok: false,
      status: 422,
      body: { message: "Ensure the group has a project with commits." },
    });
    expect(buildTestPayload(input("vulnerability_events", { project: null }))).toMatchObject({
      status: 422,
      body: { message: "Ensure the group has a project with vulnerabilities." },
    });
  });

  it("answer 422 for accepted triggers GitLab has no sample for", () => {
    for (const trigger of ["confidential_note_events", "feature_flag_events"]) {
      expect(buildTestPayload(input(trigger))).toEqual({
        ok: false,
        status: 422,
        body: { message: "Testing not available for this hook" },
      });
    }
  });

  it.each(TEST_TRIGGERS.filter((t) => !["confidential_note_events", "feature_flag_events"].includes(t)))(
    "%s sends a sample with its event header, the real project and no private email",
    (trigger) => {
      const result = buildTestPayload(input(trigger));
      if (!result.ok) throw new Error(`expected a sample for ${trigger}`);
      expect(HOOK_TRIGGERS[result.trigger].flag).toBe(trigger);
      expect(result.eventHeader).toBe(HOOK_TRIGGERS[result.trigger].eventHeader);
      const json = JSON.stringify(result.payload);
      expect(json).not.toContain("root@private.example");
      expect(json).toContain("platform/api");
      expect(JSON.parse(json)).toEqual(result.payload);
    },
  );

  it("shape the push sample as GitLab's", () => {
    const result = buildTestPayload(input("push_events"));
    expect(result).toMatchObject({
      ok: true,
      trigger: "push_hooks",
      eventHeader: "Push Hook",
      payload: {
        object_kind: "push",
        event_name: "push",
        ref: "refs/heads/main",
        user_username: "root",
        user_email: "[REDACTED]",
        project_id: 9,
        project: {
          web_url: "https://canopy.example.com/platform/api",
          git_ssh_url: "git@canopy.example.com:platform/api.git",
          git_http_url: "https://canopy.example.com/platform/api.git",
          namespace: "Platform",
          visibility_level: 10,
        },
        total_commits_count: 1,
      },
    });
  });

  it("send the caller's public email where a payload shows one", () => {
    const result = buildTestPayload(
      input("issues_events", { user: { ...user, publicEmail: "root@example.com" } }),
    );
    expect(result).toMatchObject({ payload: { object_kind: "issue", user: { email: "root@example.com" } } });
  });
});

describe("custom webhook templates", () => {
  const payload = {
    event_name: "user_add_to_group",
    user_name: 'Ann "A" \\ Lee',
    group_id: 7,
    expires_at: null,
    list: [1],
    nested: { a: { b: true } },
  };

  it("fill {{paths}} with JSON-escaped values and parse the result", () => {
    const template =
      '{"event":"{{event_name}}","who":"{{user_name}}","id":{{group_id}},"exp":{{expires_at}},"b":{{nested.a.b}},"missing":{{nope.x}}}';
    expect(renderCustomTemplate(template, payload)).toEqual({
      ok: true,
      payload: {
        event: "user_add_to_group",
        who: 'Ann "A" \\ Lee',
        id: 7,
        exp: null,
        b: true,
        missing: null,
      },
    });
  });

  it("give GitLab's errors for a template that is not JSON and for array access", () => {
    const bad = renderCustomTemplate('{"a": {{group_id}', payload);
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.message).toMatch(/^Error while parsing rendered custom webhook template: /);
    expect(renderCustomTemplate('{"a":"{{list.0}}"}', payload)).toEqual({
      ok: false,
      message: ARRAY_ACCESS_MESSAGE,
    });
    expect(renderCustomTemplate('{"a":"{{group_id.x}}"}', payload)).toEqual({
      ok: false,
      message: ARRAY_ACCESS_MESSAGE,
    });
  });
});
