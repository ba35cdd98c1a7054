/**
 * ListLinksOfGroups: a list page's `ldap_group_links` in one read (the gateway made a call per group
 * before): each group's links in order, groups without links left out, filter links only on plans
 * that have them, and no more than a page of groups per call.
 */
import path from "node:path";
import { status } from "@grpc/grpc-js";
import { migrate, readMigrations, type Plan } from "@canopy/kit";
import { throwawaySchema, type ThrowawaySchema } from "@canopy/kit/testing";
import type { ServiceError } from "@grpc/grpc-js";
import type { Deps } from "../src/deps";
import { listLinksOfGroups } from "../src/finders/links";
import { insertLink } from "../src/store/links";

let db: ThrowawaySchema;
beforeAll(async () => {
  db = await throwawaySchema({ prefix: "ldap_links_" });
  await migrate(db.pool, db.schema, await readMigrations(path.join(__dirname, "..", "migrations")));
  const link = (groupId: number, cn: string | null, filter: string | null, groupAccess = 30) =>
    insertLink(db.pool, { groupId, cn, filter, groupAccess, provider: "ldapmain" });
  await link(1, "developers", null);
  await link(1, "maintainers", null, 40);
  await link(2, null, "(department=eng)", 20);
  await link(3, "ops", null, 10);
});
afterAll(() => db?.drop());

const depsOn = (plan: Plan) => ({ pool: db.pool, config: { CANOPY_PLAN: plan } }) as unknown as Deps;
const ask = (plan: Plan, groupIds: number[]) =>
  listLinksOfGroups(depsOn(plan), { actor: undefined, groupIds });

it("answers each linked group's links in the order they were made, and leaves the others out", async () => {
  const { groups } = await ask("ultimate", [3, 1, 2, 99]);
  expect(groups).toEqual([
    {
      groupId: 1,
      links: [
        { cn: "developers", groupAccess: 30, provider: "ldapmain", filter: undefined },
        { cn: "maintainers", groupAccess: 40, provider: "ldapmain", filter: undefined },
      ],
    },
    {
      groupId: 2,
      links: [{ cn: undefined, groupAccess: 20, provider: "ldapmain", filter: "(department=eng)" }],
    },
    { groupId: 3, links: [{ cn: "ops", groupAccess: 10, provider: "ldapmain", filter: undefined }] },
  ]);
  expect((await ask("ultimate", [])).groups).toEqual([]);
});

it("hides filter links where the plan has none (a group left with none is left out)", async () => {
  const { groups } = await ask("free", [1, 2]);
  expect(groups.map((g) => g.groupId)).toEqual([1]);
});

it("refuses more than a page of groups", async () => {
  const err = (await ask(
    "ultimate",
    Array.from({ length: 101 }, (_, i) => i + 1),
  ).catch((e) => e)) as ServiceError;
  expect(err.code).toBe(status.INVALID_ARGUMENT);
  expect(err.message).toContain("group_ids has more than 100 groups");
});
