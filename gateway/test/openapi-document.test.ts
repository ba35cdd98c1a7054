/**
 * The OpenAPI document against the declarations it is generated from (no infrastructure): every
 * declared endpoint is an operation with its path parameters, its success answers and GitLab's
 * error shapes, and every schema in it compiles (ajv, JSON Schema 2020-12).
 */
import { openApiDocument } from "../src/openapi/document";
import { openApiPath } from "../src/openapi/operations";
import { ResponseChecker } from "../src/openapi/response-check";
import { API_ENDPOINTS } from "../src/routes/api";
import { GITLAB_VERSION } from "@canopy/kit";

const document = openApiDocument(API_ENDPOINTS, GITLAB_VERSION);
const checker = new ResponseChecker(document);
const label = (e: (typeof API_ENDPOINTS)[number]) => `${e.method} ${e.path}`;

test("is OpenAPI 3.1 for /api/v4, versioned as the GitLab it answers like", () => {
  expect(document.openapi).toBe("3.1.0");
  expect(document.info.version).toBe(GITLAB_VERSION);
  expect(document.servers).toEqual([{ url: "/api/v4" }]);
  expect(Object.keys(document.components.securitySchemes).sort()).toEqual([
    "accessTokenQuery",
    "oauth2",
    "privateToken",
    "privateTokenQuery",
  ]);
});

test.each(API_ENDPOINTS.map((e) => [label(e), e] as const))("%s is documented", (_label, e) => {
  const operation = document.paths[openApiPath(e.path)]?.[e.method.toLowerCase()];
  expect(operation).toBeDefined();
  const parameters = (operation!.parameters ?? []) as { name: string; in: string }[];
  for (const [, name] of e.path.matchAll(/:([a-z_]+)/g))
    expect(parameters).toContainEqual(expect.objectContaining({ name, in: "path" }));
  const statuses = Object.keys(operation!.responses);
  expect(statuses).toEqual(expect.arrayContaining([...Object.keys(e.responses), "401", "403", "default"]));
  // Open to anonymous callers exactly when the declaration says so.
  expect(operation!.security.some((s) => Object.keys(s).length === 0)).toBe(e.access === "anonymous");
  // The checker finds this operation from a concrete path.
  const concrete = e.path.replace(/:[a-z_]+/g, "1");
  expect(checker.operationPath(e.method, concrete)).toBe(openApiPath(e.path));
});

test("operation ids are unique, and every response schema compiles", () => {
  const ids = Object.values(document.paths).flatMap((p) => Object.values(p).map((o) => o.operationId));
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids).toHaveLength(API_ENDPOINTS.length);
  for (const name of Object.keys(document.components.schemas)) checker.checkEntity(name, null);
  for (const e of API_ENDPOINTS)
    for (const status of [...Object.keys(e.responses), "404"])
      checker.check({
        method: e.method,
        path: e.path.replace(/:[a-z_]+/g, "1"),
        status: Number(status),
        body: "{}",
      });
});

test("an answer is checked against its status, and unknown statuses and shapes are mismatches", () => {
  const error = JSON.stringify({ message: "404 Group Not Found" });
  expect(checker.check({ method: "GET", path: "/groups/a%2Fb", status: 404, body: error })).toBeUndefined();
  expect(checker.check({ method: "GET", path: "/groups/1", status: 418, body: error })).toBeUndefined();
  expect(
    checker.check({ method: "GET", path: "/groups/1", status: 200, body: error })?.problems.join(),
  ).toMatch(/required property 'id'/);
  expect(checker.check({ method: "GET", path: "/groups/1", status: 206, body: "{}" })?.problems).toEqual([
    "status 206 is not documented",
  ]);
  expect(checker.check({ method: "DELETE", path: "/users/1", status: 204, body: "" })).toBeUndefined();
  expect(checker.check({ method: "DELETE", path: "/users/1", status: 204, body: "{}" })?.problems).toEqual([
    "a body where none is documented",
  ]);
  expect(
    checker.check({ method: "GET", path: "/nowhere", status: 404, body: '{"error":"404 Not Found"}' }),
  ).toBeUndefined();
  expect(checker.check({ method: "GET", path: "/groups/1", status: 400, body: '{"error":1}' })).toBeDefined();
});
