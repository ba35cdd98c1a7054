import { projectMembers } from "@canopy/protos";
import { ANONYMOUS, failure, startHarness, status, type Harness, type TestUser } from "./support";

// GetUserHighestProjectAccessLevel: the project half of GitLab's highest_role (GET /users/:id for
// administrators): the highest level of the user's own unexpired project memberships.
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

const client = () => h.projectsService.client(projectMembers.ProjectMembersServiceService);
const highest = async (userId: number) =>
  (await client().getUserHighestProjectAccessLevel({ actor: h.admin, userId })).accessLevel;
const addToProject = (projectId: number, user: TestUser, accessLevel: number, expiresAt = "") =>
  client().addProjectMember(
    projectMembers.AddProjectMemberRequest.fromPartial({
      actor: h.admin,
      project: { id: projectId },
      userId: user.user.id,
      accessLevel,
      expiresAt,
    }),
  );

describe("GetUserHighestProjectAccessLevel", () => {
  it("is 0 without project memberships; a personal project makes its owner an Owner", async () => {
    const owner = await h.newUser();
    expect(await highest(owner.user.id)).toBe(0);
    await h.newProject(owner);
    expect(await highest(owner.user.id)).toBe(50);
    expect(await highest(999_999_999)).toBe(0);
  });

  it("is the highest of the user's direct memberships; group access and expired ones do not count", async () => {
    const owner = await h.newUser();
    const member = await h.newUser();
    const groupMember = await h.newUser();
    const group = await h.newGroup(owner);
    const [a, b] = [(await h.newProject(owner, group.id)).id, (await h.newProject(owner)).id];
    // Access to the group's projects through the group is the groups service's half.
    await h.addMember(group.id, groupMember, 40);
    expect(await highest(groupMember.user.id)).toBe(0);
    await addToProject(a, member, 10);
    expect(await highest(member.user.id)).toBe(10);
    await addToProject(b, member, 30, "2999-01-01");
    expect(await highest(member.user.id)).toBe(30);
    await h.db.query(
      "UPDATE project_members SET expires_at = current_date - 1 WHERE project_id = $1 AND user_id = $2",
      [b, member.user.id],
    );
    expect(await highest(member.user.id)).toBe(10);
  });

  it("answers administrators only", async () => {
    const someone = await h.newUser();
    const asked = (actor: typeof h.admin) =>
      failure(client().getUserHighestProjectAccessLevel({ actor, userId: someone.user.id }));
    expect((await asked(someone.actor)).code).toBe(status.PERMISSION_DENIED);
    expect((await asked(ANONYMOUS)).code).toBe(status.UNAUTHENTICATED);
  });
});
