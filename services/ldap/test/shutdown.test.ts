/**
 * Stopping the ldap service waits for the syncs it is running: a sync claimed just before the stop
 * still reads the directory to its end and records its result, instead of being cut off with its
 * pool (which would leave the group `started` until the stale sweep fails it an hour later).
 */
import { createPool, type Pool } from "@canopy/kit";
import { ldapServiceDefinition } from "@canopy/ldap";
import {
  ldapServersEnv,
  personDn,
  startSlapd,
  startTestService,
  testDatabaseUrl,
  waitFor,
  type Slapd,
} from "@canopy/kit/testing";

const PEOPLE = 1500;
let slapd: Slapd;
let db: Pool;
beforeAll(async () => {
  slapd = await startSlapd();
  const uids = Array.from({ length: PEOPLE }, (_, i) => `shutdown${i}`);
  await slapd.addPeople(uids.map((uid) => ({ uid })));
  await slapd.addGroup({ cn: "shutdown", kind: "groupOfNames", members: uids.map((uid) => personDn(uid)) });
  db = createPool({ url: testDatabaseUrl(), schema: "ldap" });
}, 60_000);
afterAll(async () => {
  await db?.end();
  await slapd?.close();
});

it("lets a running sync finish before the database goes", async () => {
  const service = await startTestService(ldapServiceDefinition, {
    env: {
      CANOPY_LDAP_SERVERS: ldapServersEnv({ main: slapd.serverConfig() }),
      CANOPY_LDAP_SYNC_INTERVAL_SECONDS: "0",
      CANOPY_LDAP_SYNC_POLL_MS: "50",
    },
  });
  const groupId = 900_000_000 + Math.floor(Math.random() * 1_000_000);
  try {
    await db.query(
      "INSERT INTO ldap_group_links (group_id, cn, group_access, provider) VALUES ($1, 'shutdown', 30, 'ldapmain')",
      [groupId],
    );
    await db.query(
      "INSERT INTO group_syncs (group_id, status, pending_since) VALUES ($1, 'pending', now())",
      [groupId],
    );
    await waitFor("the sync claimed", async () => {
      const { rows } = await db.query("SELECT status FROM group_syncs WHERE group_id = $1", [groupId]);
      return rows[0]?.status === "started";
    });
  } finally {
    await service.stop();
  }
  const { rows } = await db.query("SELECT status, unknown_dns, error FROM group_syncs WHERE group_id = $1", [
    groupId,
  ]);
  // Read to its end: every person counted (none has an account), its command recorded for groups.
  expect(rows[0]).toMatchObject({ status: "started", unknown_dns: PEOPLE, error: null });
});
