/**
 * Real resources for the tests that walk every declared endpoint (api-property-fuzz.test.ts,
 * api-scope-matrix.test.ts): root's private group (with a project, a hook and a custom attribute),
 * a public group and project, another private group, a user with a token, and an application. Path
 * parameters then name things that exist, so a request gets past "404 Not Found" to the handler.
 */
import type { Endpoint } from "../src/http/endpoint";
import { createToken, createUser, type Stack } from "./support";

/** URL-encoded path segments by parameter name (`:id` by the path's first segment, see realFor). */
export type RealResources = Record<string, string[]>;

export async function realResources(s: Stack): Promise<RealResources> {
  const asRoot = async (method: string, path: string, json: unknown) => {
    const res = await s.gw.request(method, `/api/v4${path}`, { token: s.rootToken, json });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
    return res.body as { id: number; full_path?: string; path_with_namespace?: string };
  };
  const owner = await createUser(s);
  const ownerToken = await createToken(s, owner.id);
  const name = `real_${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
  const group = await asRoot("POST", "/groups", { name, path: name, visibility: "private" });
  // Public ones, which every caller can read: their reads go all the way (never a write's target).
  const open = await asRoot("POST", "/groups", {
    name: `${name}_o`,
    path: `${name}_o`,
    visibility: "public",
  });
  const openProject = await asRoot("POST", "/projects", {
    name: `${name}_o`,
    path: `${name}_o`,
    namespace_id: open.id,
    visibility: "public",
  });
  const other = await asRoot("POST", "/groups", {
    name: `${name}_b`,
    path: `${name}_b`,
    visibility: "private",
  });
  const project = await asRoot("POST", "/projects", { name, path: name, namespace_id: group.id });
  const hook = await asRoot("POST", `/groups/${group.id}/hooks`, {
    url: "http://example.com/fuzz",
    url_variables: [{ key: "fuzz_key", value: "v" }],
    custom_headers: [{ key: "fuzz_key", value: "v" }],
  });
  await asRoot("PUT", `/groups/${group.id}/custom_attributes/fuzz_key`, { value: "v" });
  await asRoot("PUT", `/projects/${project.id}/custom_attributes/fuzz_key`, { value: "v" });
  const app = await asRoot("POST", "/applications", {
    name,
    redirect_uri: "https://example.com/cb",
    scopes: "api",
  });
  return {
    groups: [String(group.id), encodeURIComponent(group.full_path!)],
    projects: [String(project.id), encodeURIComponent(project.path_with_namespace!)],
    "read groups": [String(open.id), encodeURIComponent(open.full_path!)],
    "read projects": [String(openProject.id), encodeURIComponent(openProject.path_with_namespace!)],
    users: [String(owner.id), owner.username],
    personal_access_tokens: [String(ownerToken.id)],
    applications: [String(app.id)],
    group_id: [String(other.id), String(group.id)],
    project_id: [String(project.id)],
    user_id: [String(owner.id)],
    hook_id: [String(hook.id)],
    key: ["fuzz_key"],
    provider: ["ldapmain"],
    cn: ["fuzzers"],
    trigger: ["push_events"],
    hook_log_id: ["1"],
  };
}

/**
 * Real values for a path parameter: `:id` by the path's first segment, others by their name. Reads
 * also get the public group and project; writes only root's private ones, which a user cannot write
 * (a public project can be starred by anyone).
 */
export function realFor(real: RealResources, e: Endpoint, name: string): string[] {
  if (name !== "id") return real[name] ?? [];
  const area = e.path.split("/")[1] === "namespaces" ? "groups" : e.path.split("/")[1]!;
  return [...(real[area] ?? []), ...(e.method === "GET" ? (real[`read ${area}`] ?? []) : [])];
}
