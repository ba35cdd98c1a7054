/**
 * The rules of the endpoint pattern, checked over every declaration (no infrastructure): a path is
 * found by grepping it once, each path parameter is declared (so it is validated), each endpoint
 * has a named handler, and no endpoint is declared twice.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { API_ENDPOINTS } from "../src/routes/api";

const routesDir = join(__dirname, "../src/routes");
const routeSources = readdirSync(routesDir)
  .filter((f) => f.endsWith(".ts"))
  .map((f) => readFileSync(join(routesDir, f), "utf8"))
  .join("\n");

const label = (e: (typeof API_ENDPOINTS)[number]) => `${e.method} ${e.path}`;

test.each(API_ENDPOINTS.map((e) => [label(e), e] as const))("%s follows the pattern", (_label, e) => {
  // Written out literally in a route file, never built from pieces.
  expect(routeSources).toContain(`path: "${e.path}"`);
  for (const [, name] of e.path.matchAll(/:([a-z_]+)/g)) expect(Object.keys(e.params)).toContain(name);
  expect(e.handler.name).toMatch(/^[a-z][A-Za-z]+$/);
  expect(["anonymous", "user", "admin"]).toContain(e.access);
  // Checking admin before parameters means nothing for an endpoint open to others.
  if (e.adminBeforeParams) expect(e.access).toBe("admin");
});

test("no method and path is declared twice, and literal paths come before overlapping :params", () => {
  const labels = API_ENDPOINTS.map(label);
  expect(new Set(labels).size).toBe(labels.length);
  expect(labels.indexOf("GET /personal_access_tokens/self")).toBeLessThan(
    labels.indexOf("GET /personal_access_tokens/:id"),
  );
});
