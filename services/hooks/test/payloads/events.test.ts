import {
  buildMemberPayload,
  buildProjectPayload,
  buildSubgroupPayload,
  memberUpdateIsReported,
  type HookGroup,
  type HookMembership,
  type HookProject,
  type HookUser,
} from "../../src/payloads";

const parent: HookGroup = {
  id: 7,
  name: "Group One",
  path: "group1",
  fullPath: "group1",
  createdAt: new Date("2021-01-01T00:00:00.000Z"),
  updatedAt: new Date("2021-01-01T00:00:00.000Z"),
  planName: null,
};
const subgroup: HookGroup = {
  ...parent,
  id: 10,
  name: "subgroup1",
  path: "subgroup1",
  fullPath: "group1/subgroup1",
  parentId: 7,
  createdAt: new Date("2021-01-20T09:40:12.345Z"),
  updatedAt: new Date("2021-01-20T09:40:12.999Z"),
};
const user: HookUser = {
  id: 64,
  username: "test_user",
  name: "Test User",
  email: "testuser@webhooktest.com",
};
const membership: HookMembership = {
  accessLevel: 10,
  expiresAt: "2020-12-14",
  createdAt: new Date("2020-12-11T04:57:22.120Z"),
  updatedAt: new Date("2020-12-11T04:57:22.120Z"),
};

describe("subgroup events", () => {
  it("are GitLab's keys, in order, with xmlschema dates and the Subgroup Hook header", () => {
    const built = buildSubgroupPayload("subgroup_create", subgroup, parent);
    expect(built.trigger).toBe("subgroup_hooks");
    expect(built.eventHeader).toBe("Subgroup Hook");
    expect(JSON.stringify(built.payload)).toBe(
      JSON.stringify({
        created_at: "2021-01-20T09:40:12Z",
        updated_at: "2021-01-20T09:40:12Z",
        event_name: "subgroup_create",
        name: "subgroup1",
        path: "subgroup1",
        full_path: "group1/subgroup1",
        group_id: 10,
        parent_group_id: 7,
        parent_name: "Group One",
        parent_path: "group1",
        parent_full_path: "group1",
      }),
    );
    expect(buildSubgroupPayload("subgroup_destroy", subgroup, parent).payload.event_name).toBe(
      "subgroup_destroy",
    );
  });
});

describe("member events", () => {
  it("match the documented user_add_to_group payload key for key", () => {
    const built = buildMemberPayload(
      "user_add_to_group",
      { ...parent, id: 100, name: "webhook-test", path: "webhook-test" },
      user,
      membership,
    );
    expect(built.eventHeader).toBe("Member Hook");
    expect(built.trigger).toBe("member_hooks");
    expect(JSON.stringify(built.payload)).toBe(
      JSON.stringify({
        created_at: "2020-12-11T04:57:22Z",
        updated_at: "2020-12-11T04:57:22Z",
        group_name: "webhook-test",
        group_path: "webhook-test",
        group_id: 100,
        user_username: "test_user",
        user_name: "Test User",
        user_email: "testuser@webhooktest.com",
        user_id: 64,
        group_access: "Guest",
        group_plan: null,
        expires_at: "2020-12-14T00:00:00Z",
        event_name: "user_add_to_group",
      }),
    );
  });

  it("name the role, a custom role first, and print no expiry as null", () => {
    const developer = buildMemberPayload("user_update_for_group", parent, user, {
      ...membership,
      accessLevel: 30,
      expiresAt: null,
    });
    expect(developer.payload).toMatchObject({
      group_access: "Developer",
      expires_at: null,
      event_name: "user_update_for_group",
    });
    expect(
      buildMemberPayload("user_remove_from_group", parent, user, { ...membership, accessLevel: 15 }).payload
        .group_access,
    ).toBe("Planner");
    expect(
      buildMemberPayload("user_access_request_to_group", parent, user, {
        ...membership,
        memberRoleName: "Auditor",
      }).payload.group_access,
    ).toBe("Auditor");
    expect(
      buildMemberPayload("user_add_to_group", { ...parent, planName: "ultimate" }, user, membership).payload
        .group_plan,
    ).toBe("ultimate");
  });

  it("report an update only when the level or the expiry changed", () => {
    expect(memberUpdateIsReported(membership, { ...membership, updatedAt: new Date() })).toBe(false);
    expect(memberUpdateIsReported(membership, { ...membership, accessLevel: 30 })).toBe(true);
    expect(memberUpdateIsReported(membership, { ...membership, expiresAt: null })).toBe(true);
  });
});

describe("project events", () => {
  const project: HookProject = {
    id: 22,
    name: "project1",
    path: "project1",
    pathWithNamespace: "group1/project1",
    projectNamespaceId: 32,
    visibility: "private",
    createdAt: new Date("2024-10-07T10:43:48.000Z"),
    updatedAt: new Date("2024-10-07T10:43:48.500Z"),
  };

  it("carry the documented keys plus owner_name and owner_email, owners with public emails only", () => {
    const owners = [
      { ...user, name: "John", publicEmail: "user1@example.com" },
      { ...user, id: 65, name: "Hidden" },
    ];
    const built = buildProjectPayload("project_create", project, parent, owners);
    expect(built.eventHeader).toBe("Project Hook");
    expect(built.trigger).toBe("project_hooks");
    expect(JSON.stringify(built.payload)).toBe(
      JSON.stringify({
        event_name: "project_create",
        created_at: "2024-10-07T10:43:48Z",
        updated_at: "2024-10-07T10:43:48Z",
        name: "project1",
        path: "project1",
        path_with_namespace: "group1/project1",
        project_id: 22,
        project_namespace_id: 32,
        owner_name: "Group One",
        owner_email: "",
        owners: [
          { name: "John", email: "user1@example.com" },
          { name: "Hidden", email: "[REDACTED]" },
        ],
        project_visibility: "private",
      }),
    );
    expect(buildProjectPayload("project_destroy", project, parent, []).payload.event_name).toBe(
      "project_destroy",
    );
  });
});
