/**
 * Real answers against the OpenAPI document: a representative walk over the API (users, tokens,
 * groups, members, sharing, projects, namespaces, and the errors on the way) on a gateway whose
 * opt-in check (CANOPY_OPENAPI_CHECK_FILE) records every answer. Each reply is also checked here,
 * so a mismatch names the call that made it. The document itself is served to anonymous callers.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { OpenApiDocument } from "../src/openapi/document";
import { ResponseChecker } from "../src/openapi/response-check";
import { GITLAB_VERSION } from "@canopy/kit";
import { signedInUser, startStack, unique, type Reply, type Stack } from "./support";

const checkFile = join(mkdtempSync(join(tmpdir(), "canopy-openapi-")), "answers.jsonl");
let stack: Stack;
let checker: ResponseChecker;
beforeAll(async () => {
  stack = await startStack({ gateways: [{ CANOPY_OPENAPI_CHECK_FILE: checkFile }] });
}, 30_000);
afterAll(() => stack.stop(), 30_000);

const seen: string[] = [];
/** Calls the API and checks the answer against the document. */
async function call(method: string, path: string, token?: string, json?: unknown): Promise<Reply> {
  const reply = await stack.gw.request(method, `/api/v4${path}`, { token, json });
  const bare = path.split("?")[0]!;
  const mismatch = checker.check({ method, path: bare, status: reply.status, body: reply.text });
  if (mismatch) throw new Error(`${method} ${path} → ${reply.status}: ${mismatch.problems.join("; ")}`);
  seen.push(`${method} ${checker.operationPath(method, bare)}`);
  return reply;
}

test("GET /api/v4/openapi.json: the document, to anonymous callers", async () => {
  const reply = await stack.gw.get("/api/v4/openapi.json");
  expect(reply.status).toBe(200);
  expect(reply.headers.get("content-type")).toBe("application/json");
  const document = reply.body as OpenApiDocument;
  expect(document.openapi).toBe("3.1.0");
  expect(document.info.version).toBe(GITLAB_VERSION);
  expect(document.paths["/openapi.json"]?.get).toBeDefined();
  checker = new ResponseChecker(document);
});

test("a walk over the API answers as documented, errors included", async () => {
  const root = stack.rootToken;
  const { user, secret } = await signedInUser(stack, ["api"]);
  const other = await signedInUser(stack, ["read_user"]);

  await call("GET", "/user", secret);
  await call("GET", "/user", root);
  await call("GET", "/users", secret);
  await call("GET", "/users", root);
  await call("GET", `/users/${user.id}`, secret);
  await call("GET", `/users/${user.id}`, root);
  await call("PUT", `/users/${user.id}/custom_attributes/team`, root, { value: "core" });
  await call("GET", `/users/${user.id}?with_custom_attributes=true`, root);
  await call("GET", `/users?with_custom_attributes=true&username=${user.username}`, root);
  await call("GET", "/version", secret);
  await call("GET", "/personal_access_tokens", secret);
  await call("GET", "/personal_access_tokens/self", secret);
  await call("GET", "/application/settings", root);
  await call("GET", "/applications", root);

  const path = unique("oa-");
  const group = (await call("POST", "/groups", secret, { name: path, path })).body as { id: number };
  const sub = (
    await call("POST", "/groups", secret, { name: `${path}-sub`, path: "sub", parent_id: group.id })
  ).body as { id: number };
  await call("GET", `/groups/${group.id}`, secret);
  await call("GET", `/groups/${encodeURIComponent(`${path}/sub`)}`, secret);
  await call("PUT", `/groups/${sub.id}`, secret, { description: "d" });
  await call("GET", "/groups?statistics=true&with_custom_attributes=true", root);
  await call("GET", `/groups/${group.id}/subgroups`, secret);
  await call("GET", `/groups/${group.id}/descendant_groups`);
  await call("POST", `/groups/${group.id}/members`, secret, { user_id: other.user.id, access_level: 30 });
  await call("GET", `/groups/${group.id}/members`, secret);
  await call("GET", `/groups/${group.id}/members/all/${other.user.id}`, secret);
  await call("PUT", `/groups/${group.id}/members/${other.user.id}`, secret, { access_level: 20 });
  await call("GET", `/groups/${group.id}/members`, root);

  const project = (await call("POST", "/projects", secret, { name: "p", namespace_id: group.id })).body as {
    id: number;
  };
  await call("GET", `/projects/${project.id}`, secret);
  await call("GET", `/projects/${project.id}?with_custom_attributes=true`, root);
  await call("PUT", `/projects/${project.id}`, secret, { description: "d", topics: ["t"] });
  await call("POST", `/projects/${project.id}/star`, secret);
  await call("POST", `/projects/${project.id}/star`, secret);
  await call("GET", `/groups/${group.id}/projects`, secret);
  await call("GET", `/groups/${group.id}/projects?simple=true`, secret);
  await call("GET", "/projects?owned=true", secret);
  await call("GET", `/users/${user.id}/projects`, secret);
  await call("POST", `/projects/${project.id}/share`, secret, { group_id: sub.id, group_access: 30 });
  await call("GET", `/groups/${group.id}`, secret);
  const personal = (await call("POST", "/projects", secret, { name: "mine" })).body as { id: number };
  await call("GET", `/projects/${personal.id}`, secret);
  await call("GET", "/namespaces", secret);
  await call("GET", `/namespaces/${group.id}`, secret);
  await call("PUT", `/groups/${group.id}/custom_attributes/team`, root, { value: "red" });
  await call("GET", `/groups/${group.id}/custom_attributes`, root);

  // The errors on the way, each in GitLab's shape.
  expect((await call("GET", "/user")).status).toBe(401);
  expect((await call("GET", "/user", "glpat-unknown")).status).toBe(401);
  expect((await call("GET", "/projects", other.secret)).status).toBe(403);
  expect((await call("GET", "/application/settings", secret)).status).toBe(403);
  expect((await call("GET", "/groups/999999999", secret)).status).toBe(404);
  expect((await call("POST", "/groups", secret, { name: "x" })).status).toBe(400);
  expect((await call("GET", "/groups?per_page=x", secret)).status).toBe(400);
  expect((await call("POST", "/groups", secret, { name: path, path })).status).toBe(400);
  expect((await call("GET", "/nowhere", secret)).status).toBe(404);

  await call("DELETE", `/projects/${project.id}/share/${sub.id}`, secret);
  await call("DELETE", `/groups/${group.id}/members/${other.user.id}`, secret);
  await call("DELETE", `/projects/${personal.id}`, secret);
  await call("DELETE", `/groups/${sub.id}`, secret);
  await call("DELETE", "/personal_access_tokens/self", other.secret);
  expect(new Set(seen).size).toBeGreaterThan(35);
}, 60_000);

test("the gateway's own check recorded every answer, and none with problems", () => {
  const lines = readFileSync(checkFile, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { method: string; path: string; status: number; problems?: string[] });
  expect(lines.length).toBeGreaterThanOrEqual(seen.length);
  expect(lines.filter((l) => l.problems)).toEqual([]);
});
