/**
 * The daily removal of expired project memberships and shares (GitLab's RemoveExpiredMembersWorker
 * and RemoveExpiredGroupLinksWorker for projects), and RestoreProject's plan rule.
 *
 * Other files running meanwhile may have expired rows of their own, which a pass here removes too:
 * they give no access either way, and every assertion here is about this file's projects only.
 */
import { events, PROJECTS_EVENTS, projectLifecycle, type projectEvents } from "@canopy/protos";
import { startTestService, utcDate } from "@canopy/kit/testing";
import { removeExpiredBatch, runExpiredRemovals } from "../src/commands/member-removals";
import { projectsServiceDefinition } from "../src/service";
import { failure, startHarness, status, type Harness, type TestUser } from "./support";

let h: Harness;
let owner: TestUser;
beforeAll(async () => {
  h = await startHarness();
  owner = await h.newUser();
});
afterAll(() => h.stop());

async function member(projectId: number, expiresAt: string | null) {
  const u = await h.newUser();
  await h.db.query(
    "INSERT INTO project_members (project_id, user_id, access_level, expires_at) VALUES ($1, $2, 30, $3)",
    [projectId, u.user.id, expiresAt],
  );
  return u.user.id;
}

const memberIds = async (projectId: number) =>
  (
    await h.db.query<{ user_id: number }>(
      "SELECT user_id::int FROM project_members WHERE project_id = $1 ORDER BY user_id",
      [projectId],
    )
  ).rows.map((r) => r.user_id);

/** The outbox's payloads of one kind, decoded, that `mine` selects. */
async function recorded<T>(
  kind: { subject: string; codec: { decode(b: Uint8Array): T } },
  mine: (p: T) => boolean,
): Promise<{ payload: T; actor: events.Event["actor"] }[]> {
  const { rows } = await h.db.query<{ envelope: Buffer }>(
    "SELECT envelope FROM outbox WHERE subject = $1 ORDER BY seq",
    [kind.subject],
  );
  return rows
    .map((r) => events.Event.decode(r.envelope))
    .map((e) => ({ payload: kind.codec.decode(e.payload), actor: e.actor }))
    .filter((e) => mine(e.payload));
}

it("removes memberships that expired today or before, with a MemberRemoved each and no actor, and keeps the rest", async () => {
  const g = await h.newGroup(owner);
  const p = await h.newProject(owner, g.id);
  const yesterday = await member(p.id, utcDate(-1));
  const today = await member(p.id, utcDate(0));
  const tomorrow = await member(p.id, utcDate(1));
  const forever = await member(p.id, null);
  await runExpiredRemovals(h.projectsService.deps);
  expect(await memberIds(p.id)).toEqual([tomorrow, forever].sort((a, b) => a - b));
  const removed = await recorded(
    PROJECTS_EVENTS.memberRemoved,
    (e: projectEvents.ProjectMemberRemoved) => e.member?.projectId === p.id,
  );
  expect(removed.map((e) => e.payload.member!.userId).sort()).toEqual([yesterday, today].sort());
  expect(removed[0]!.payload.member).toMatchObject({ projectId: p.id, accessLevel: 30 });
  expect(removed.every((e) => e.actor === undefined)).toBe(true);
});

it("removes expired shares of projects with groups, with a ProjectUnshared each", async () => {
  const g = await h.newGroup(owner);
  const [expired, current] = [await h.newGroup(owner), await h.newGroup(owner)];
  const p = await h.newProject(owner, g.id);
  await h.db.query(
    `INSERT INTO project_group_links (project_id, group_id, group_access, expires_at)
     VALUES ($1, $2, 30, $3), ($1, $4, 30, $5)`,
    [p.id, expired.id, utcDate(-2), current.id, utcDate(2)],
  );
  await runExpiredRemovals(h.projectsService.deps);
  const { rows } = await h.db.query<{ group_id: number }>(
    "SELECT group_id::int FROM project_group_links WHERE project_id = $1",
    [p.id],
  );
  expect(rows.map((r) => r.group_id)).toEqual([current.id]);
  const unshared = await recorded(
    PROJECTS_EVENTS.projectUnshared,
    (e: projectEvents.ProjectUnshared) => e.projectId === p.id,
  );
  expect(unshared.map((e) => e.payload.groupId)).toEqual([expired.id]);
});

it("lets replicas run at once without removing a row twice", async () => {
  const g = await h.newGroup(owner);
  const p = await h.newProject(owner, g.id);
  const users = [];
  for (let i = 0; i < 6; i++) users.push(await member(p.id, utcDate(-1)));
  const passes = await Promise.all([1, 2, 3].map(() => removeExpiredBatch(h.projectsService.deps, 2)));
  await runExpiredRemovals(h.projectsService.deps);
  expect(await memberIds(p.id)).toEqual([]);
  const removed = await recorded(
    PROJECTS_EVENTS.memberRemoved,
    (e: projectEvents.ProjectMemberRemoved) => e.member?.projectId === p.id,
  );
  expect(removed.map((e) => e.payload.member!.userId).sort()).toEqual([...users].sort());
  expect(passes.every((x) => x.members <= 2)).toBe(true);
});

it("answers RestoreProject 404 Not Found on the free plan, after the permission check", async () => {
  const free = await startTestService(projectsServiceDefinition, {
    env: { CANOPY_PLAN: "free", CANOPY_PROJECTS_EXPIRED_REMOVAL_MS: "0" },
  });
  try {
    const client = free.client(projectLifecycle.ProjectLifecycleServiceService);
    const p = await h.newProject(owner, 0, { visibility: "private" });
    const stranger = await h.newUser();
    const restore = (actor: TestUser["actor"]) =>
      client.restoreProject({ actor, project: { id: p.id, fullPath: "" } });
    expect(await failure(restore(owner.actor))).toMatchObject({
      code: status.NOT_FOUND,
      publicMessage: "404 Not Found",
    });
    expect(await failure(restore(stranger.actor))).toMatchObject({
      code: status.NOT_FOUND,
      resource: "Project",
    });
  } finally {
    await free.stop();
  }
});
