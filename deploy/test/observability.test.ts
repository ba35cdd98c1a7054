// The Grafana dashboard and the alerting rules name metrics by string; the code registers them. This
// checks the two cannot drift: every metric either file queries is one the code registers (a renamed
// metric or a typo would otherwise leave an empty panel, or an alert that can never fire), every
// alert has a summary and a runbook, and each of the RED, lag, dead-letter and webhook metrics is
// on the dashboard and behind an alert.
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { registry } from "@canopy/kit";
// The hooks service's own counters, on the kit's registry once its module is loaded.
import "@canopy/hooks/worker/delivery-metrics";

const ROOT = path.join(__dirname, "..", "..");
const dashboard = JSON.parse(readFileSync(path.join(ROOT, "deploy/grafana/canopy-dashboard.json"), "utf8"));
const rules = parse(readFileSync(path.join(ROOT, "deploy/prometheus/alerts.yaml"), "utf8")) as {
  groups: { name: string; rules: { alert: string; expr: string; annotations: Record<string, string> }[] }[];
};

interface Panel {
  type: string;
  title: string;
  targets?: { expr: string }[];
  panels?: Panel[];
}

const panelsOf = (panels: Panel[]): Panel[] => panels.flatMap((p) => [p, ...panelsOf(p.panels ?? [])]);
const panels = panelsOf(dashboard.panels).filter((p) => p.type !== "row");
const dashboardExprs: string[] = [
  ...panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr)),
  ...dashboard.templating.list.map((v: { query: string }) => v.query),
];
const alerts = rules.groups.flatMap((g) => g.rules);

/** The names Prometheus sees: a histogram is its _bucket, _sum and _count series. */
async function exposedNames(): Promise<Set<string>> {
  const names = new Set<string>();
  for (const metric of await registry.getMetricsAsJSON()) {
    names.add(metric.name);
    if (String(metric.type) === "histogram")
      for (const suffix of ["_bucket", "_sum", "_count"]) names.add(metric.name + suffix);
  }
  return names;
}

/** Metric names in a PromQL expression: ours (canopy_) and the default process ones we use. */
const metricsIn = (expr: string) =>
  [...expr.matchAll(/\b(?:canopy|process|nodejs)_[a-z0-9_]+\b/g)].map((m) => m[0]);

const KEY_METRICS = [
  "canopy_http_server_requests_total",
  "canopy_http_server_errors_total",
  "canopy_http_server_request_seconds_bucket",
  "canopy_grpc_server_requests_total",
  "canopy_grpc_server_errors_total",
  "canopy_grpc_server_handling_seconds_bucket",
  "canopy_outbox_oldest_pending_seconds",
  "canopy_consumer_pending_messages",
  "canopy_events_dead_lettered_total",
  "canopy_hook_delivery_attempts_total",
];

it("the dashboard queries only metrics the code registers", async () => {
  const known = await exposedNames();
  const used = dashboardExprs.flatMap(metricsIn);
  expect(used.length).toBeGreaterThan(10);
  expect(used.filter((name) => !known.has(name))).toEqual([]);
  for (const panel of panels) expect(panel.targets?.length).toBeGreaterThan(0);
});

it("the alerts query only metrics the code registers, and each has a summary and a runbook", async () => {
  const known = await exposedNames();
  expect(alerts.length).toBeGreaterThanOrEqual(6);
  for (const alert of alerts) {
    const used = metricsIn(alert.expr);
    expect({ alert: alert.alert, unknown: used.filter((n) => !known.has(n)) }).toEqual({
      alert: alert.alert,
      unknown: [],
    });
    expect(used.length).toBeGreaterThan(0);
    expect(alert.annotations.summary).toBeTruthy();
    expect(alert.annotations.runbook?.length).toBeGreaterThan(80);
  }
});

it("every key metric is on the dashboard and behind an alert", () => {
  const onDashboard = new Set(dashboardExprs.flatMap(metricsIn));
  const alerted = new Set(alerts.flatMap((a) => metricsIn(a.expr)));
  expect(KEY_METRICS.filter((m) => !onDashboard.has(m))).toEqual([]);
  expect(KEY_METRICS.filter((m) => !alerted.has(m))).toEqual([]);
});
