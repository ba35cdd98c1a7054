/**
 * The RED and pipeline metrics, as Prometheus scrapes them from a service's /metrics: after a few
 * requests, a webhook that succeeds and one that fails, each series is there with its bounded labels
 * (route templates, never a path with an id in it).
 */
import {
  hooksKnowGroup,
  newGroup,
  newHook,
  newUser,
  startHooksStack,
  unique,
  waitFor,
  type HooksStack,
} from "./support";

let stack: HooksStack;

beforeAll(async () => {
  stack = await startHooksStack();
});
afterAll(() => stack?.stop());

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The text exposition format's samples (comments left out). */
function parse(text: string): Sample[] {
  return text
    .split("\n")
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => {
      const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!m) throw new Error(`not a sample: ${line}`);
      const labels = Object.fromEntries(
        [...(m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]),
      );
      return { name: m[1]!, labels: labels as Record<string, string>, value: Number(m[3]) };
    });
}

async function scrape(): Promise<{ text: string; samples: Sample[] }> {
  const res = await fetch(`http://127.0.0.1:${stack.hooks.healthPort}/metrics`);
  expect(res.status).toBe(200);
  const text = await res.text();
  return { text, samples: parse(text) };
}

/** The value of the one sample named `name` with (at least) `labels`; undefined when absent. */
const valueOf = (samples: Sample[], name: string, labels: Record<string, string>) =>
  samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;

it("exposes RED metrics per route and RPC, pipeline lag and webhook outcomes with bounded labels", async () => {
  const owner = await newUser(stack);
  const parent = await newGroup(stack, owner);
  const good = await newHook(stack, parent, owner, { subgroup_events: true, push_events: false });
  const bad = await newHook(stack, parent, owner, { subgroup_events: true, push_events: false });
  const badPath = new URL(bad.url).pathname;
  stack.receiver.answer = (r) => (r.url === badPath ? { status: 500 } : { status: 200 });
  await hooksKnowGroup(stack, parent.id);
  const missing = await stack.gw.get("/api/v4/groups/999999999", { token: owner.token });
  expect(missing.status).toBe(404);
  const path = unique("sub-").toLowerCase();
  const created = await stack.gw.post("/api/v4/groups", {
    token: owner.token,
    json: { name: path, path, parent_id: parent.id },
  });
  expect(created.status).toBe(201);
  await stack.receiver.waitFor(new URL(good.url).pathname, 1);
  await stack.receiver.waitFor(badPath, 1);

  let samples: Sample[] = [];
  let text = "";
  await waitFor("both webhook attempts counted", async () => {
    ({ text, samples } = await scrape());
    const attempts = (result: string) =>
      valueOf(samples, "canopy_hook_delivery_attempts_total", { trigger: "subgroup_hooks", result }) ?? 0;
    return attempts("success") >= 1 && attempts("http_5xx") >= 1;
  });

  const created201 = { method: "POST", route: "/api/v4/groups", status_class: "2xx" };
  expect(valueOf(samples, "canopy_http_server_requests_total", created201)).toBeGreaterThanOrEqual(1);
  expect(valueOf(samples, "canopy_http_server_request_seconds_count", created201)).toBeGreaterThanOrEqual(1);
  const notFound = { method: "GET", route: "/api/v4/groups/:id", status_class: "4xx" };
  expect(valueOf(samples, "canopy_http_server_requests_total", notFound)).toBeGreaterThanOrEqual(1);
  // A 404 is the caller's: not an error of ours.
  expect(valueOf(samples, "canopy_http_server_errors_total", notFound)).toBeUndefined();
  expect(text).toContain("# TYPE canopy_http_server_errors_total counter");

  const createGroup = samples.find(
    (s) => s.name === "canopy_grpc_server_requests_total" && s.labels.method?.endsWith("/CreateGroup"),
  );
  expect(createGroup?.labels).toEqual({
    method: expect.stringMatching(/^\/canopy\.groups\.v1\.\w+\/CreateGroup$/),
    code: "OK",
  });
  expect(text).toContain("# TYPE canopy_grpc_server_errors_total counter");
  expect(samples.some((s) => s.name === "canopy_grpc_server_handling_seconds_bucket")).toBe(true);

  for (const service of ["auth", "groups", "projects", "hooks"]) {
    expect(valueOf(samples, "canopy_outbox_pending_events", { service })).toBeGreaterThanOrEqual(0);
    expect(valueOf(samples, "canopy_outbox_oldest_pending_seconds", { service })).toBeGreaterThanOrEqual(0);
  }
  expect(
    valueOf(samples, "canopy_consumer_pending_messages", { consumer: "hooks-events" }),
  ).toBeGreaterThanOrEqual(0);
  expect(
    valueOf(samples, "canopy_consumer_ack_pending_messages", { consumer: "hooks-events" }),
  ).toBeGreaterThanOrEqual(0);
  expect(text).toContain("# TYPE canopy_events_dead_lettered_total counter");
  expect(text).toContain("# TYPE canopy_hook_deliveries_failed_total counter");

  // Bounded labels: no raw path, id or hook URL in any label value.
  const values = samples.flatMap((s) => Object.values(s.labels));
  for (const raw of ["999999999", `/api/v4/groups/${parent.id}`, stack.receiver.url, path])
    expect(values.filter((v) => v.includes(raw))).toEqual([]);
});
