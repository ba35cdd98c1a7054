// Events (GET /events, /users/:id/events, /projects/:id/events) through python-gitlab
// (e2e/python/users_events_e2e.py) and gitbeaker (Events.all), both unchanged.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Gitlab } from "@gitbeaker/rest";
import { createToken, createUser, unique } from "../support/api";
import { refusal, type Client } from "../support/gitbeaker";
import { runScenarios } from "../support/python-gitlab";
import type { Session } from "../support/session";

const SCENARIOS = ["users", "recorded", "filters", "invisible_to_strangers"];

export function usersEvents(session: Session) {
  describe("events through python-gitlab and gitbeaker", () => {
    let folder: string;
    beforeAll(() => {
      folder = mkdtempSync(path.join(tmpdir(), "canopy-python-gitlab-"));
    });
    afterAll(() => rmSync(folder, { recursive: true, force: true }));

    it("python-gitlab: every scenario passes", async () => {
      const { code, report, stderr } = await runScenarios(session, folder, "users_events_e2e.py");
      expect({ code, report, stderr }).toEqual({
        code: 0,
        report: { ok: true, passed: SCENARIOS, python_gitlab: expect.stringMatching(/^3\./) },
        stderr: "",
      });
    }, 120_000);

    it("gitbeaker: Events.all for the caller, a user and a project; a private project's hidden", async () => {
      const { url, rootToken } = session.stack;
      const owner = await createUser(url, rootToken, session.secrets);
      const member = await createUser(url, rootToken, session.secrets);
      const stranger = await createUser(url, rootToken, session.secrets);
      const asOwner: Client = new Gitlab({
        host: url,
        token: (await createToken(url, rootToken, owner.id, session.secrets)).token,
      });
      const asStranger: Client = new Gitlab({
        host: url,
        token: (await createToken(url, rootToken, stranger.id, session.secrets)).token,
      });
      const project = await asOwner.Projects.create({ name: unique("gb-events-"), visibility: "private" });
      await asOwner.ProjectMembers.add(project.id, 30, { userId: member.id });

      const own = await asOwner.Events.all();
      expect(own.map((e) => [e.action_name, e.project_id, e.author_username])).toEqual([
        ["created", project.id, owner.username],
      ]);
      const ofProject = await asOwner.Events.all({ projectId: project.id, sort: "asc" });
      expect(ofProject.map((e) => [e.action_name, e.author_id])).toEqual([
        ["created", owner.id],
        ["joined", member.id],
      ]);
      const joined = await asOwner.Events.all({ userId: member.id, action: "joined" });
      expect(joined.map((e) => e.project_id)).toEqual([project.id]);
      expect(await asStranger.Events.all({ userId: owner.id })).toEqual([]);
      expect(await refusal(asStranger.Events.all({ projectId: project.id }))).toEqual({
        status: 404,
        description: "404 Project Not Found",
      });
    });
  });
}
