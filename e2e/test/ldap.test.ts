// End-to-end LDAP (issue 10): the whole stack as `npm start` runs it, with CANOPY_LDAP_SERVERS pointing
// at a throwaway slapd. People sign in with their directory password (the password grant), an owner
// links a directory group, a sync brings its people in with the link's access, and one who leaves the
// directory group leaves on the next sync; through python-gitlab and through gitbeaker. Its own stack:
// the other suites run without a directory, as most deployments do.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ldapServersEnv, startSlapd, type Slapd } from "@canopy/kit/testing";
import { ldapWithGitbeaker } from "./suites/ldap-gitbeaker";
import { directoryTeam } from "./support/directory";
import { runScenarios } from "./support/python-gitlab";
import { Session } from "./support/session";

jest.setTimeout(60_000);

const session = new Session();
let slapd: Slapd;

beforeAll(async () => {
  slapd = await startSlapd();
  await session.start({ CANOPY_LDAP_SERVERS: ldapServersEnv({ main: slapd.serverConfig() }) });
}, 120_000);
afterAll(async () => {
  await session.dispose();
  await slapd?.close();
}, 60_000);

describe("python-gitlab: group.ldap_group_links and group.ldap_sync()", () => {
  let folder: string;
  beforeAll(() => {
    folder = mkdtempSync(path.join(tmpdir(), "canopy-python-ldap-"));
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it("signs people in from the directory, syncs a linked group, and drops a leaver on the next sync", async () => {
    const team = await directoryTeam(slapd, "py", 2);
    const { code, report, stderr } = await runScenarios(session, folder, "ldap_e2e.py", [], {
      CANOPY_LDAP_PEOPLE: JSON.stringify(team.people),
      CANOPY_LDAP_CN: team.cn,
      CANOPY_LDAP_GROUP_DN: team.groupDn,
      CANOPY_LDAP_URL: slapd.url,
      CANOPY_LDAP_ADMIN_DN: slapd.adminDn,
      CANOPY_LDAP_ADMIN_PASSWORD: slapd.adminPassword,
    });
    expect({ code, report, stderr }).toEqual({
      code: 0,
      report: {
        ok: true,
        passed: [
          "sign_in_with_directory_password",
          "owner_links_and_syncs",
          "leaver_leaves_on_next_sync",
          "unlink",
        ],
        python_gitlab: expect.stringMatching(/^3\./),
      },
      stderr: "",
    });
  }, 120_000);
});

ldapWithGitbeaker(session, () => slapd);
