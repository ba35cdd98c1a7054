// What can be checked of helm/canopy/templates without a helm binary (none here; values-schema.test.ts
// renders them where there is one): the block structure of each file, that every `.Values` path a
// template reads exists in values.yaml, and, as text, which guard each object and setting sits under.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { readManifest, ROOT } from "../lib/manifest.cjs";

const DIR = path.join(ROOT, "helm/canopy/templates");
const files = readdirSync(DIR);
const read = (file: string) => readFileSync(path.join(DIR, file), "utf8");
const values = parse(readFileSync(path.join(ROOT, "helm/canopy/values.yaml"), "utf8"));
const ACTION = /\{\{-?\s*(?!\/\*)([\s\S]*?)\s*-?\}\}/g;
const OPENS = /^(if|range|with|define)\b/;

/** The block actions (`if ...`, `range ...`) open around the first occurrence of `needle`, outermost first. */
function guardsOf(text: string, needle: string): string[] {
  const at = text.indexOf(needle);
  expect(at).toBeGreaterThanOrEqual(0);
  const open: string[] = [];
  for (const match of text.slice(0, at).matchAll(ACTION)) {
    const action = match[1] ?? "";
    if (OPENS.test(action)) open.push(action);
    else if (/^end\b/.test(action)) open.pop();
    else if (/^else\b/.test(action)) open.push(`${open.pop()} / ${action}`);
  }
  return open;
}

describe("helm/canopy/templates, read as text", () => {
  it.each(files)("%s closes every block it opens", (file) => {
    const actions = [...read(file).matchAll(ACTION)].map((m) => m[1] ?? "");
    const opened = actions.filter((a) => OPENS.test(a)).length;
    expect(actions.filter((a) => /^end\b/.test(a))).toHaveLength(opened);
  });

  it("includes only templates _helpers.tpl defines, and reads only .Values paths values.yaml has", () => {
    const defined = [...read("_helpers.tpl").matchAll(/define "([^"]+)"/g)].map((m) => m[1]);
    for (const file of files) {
      const text = read(file);
      for (const [, name] of text.matchAll(/include "([^"]+)"/g)) expect(defined).toContain(name);
      for (const [, dotted = ""] of text.matchAll(/\.Values((?:\.[A-Za-z_]\w*)+)/g)) {
        const keys = dotted.slice(1).split(".");
        const found = keys.reduce((node, key) => (node && key in node ? node[key] : undefined), values);
        expect([`${file}: .Values${dotted}`, found !== undefined]).toEqual([
          `${file}: .Values${dotted}`,
          true,
        ]);
      }
    }
  });

  it("hardens every pod: non-root, RuntimeDefault seccomp, no escalation, no capabilities, read-only root", () => {
    const helpers = read("_helpers.tpl");
    expect(helpers).toMatch(/define "canopy.podSecurityContext" -\}\}\nrunAsNonRoot: true\n/);
    expect(helpers).toContain("seccompProfile: { type: RuntimeDefault }");
    const container = /define "canopy.containerSecurityContext" -\}\}\n([\s\S]*?)\{\{- end/.exec(helpers)![1];
    expect(container).toBe(
      "allowPrivilegeEscalation: false\nreadOnlyRootFilesystem: true\ncapabilities: { drop: [ALL] }\n",
    );
    for (const file of ["deployments.yaml", "migrations-job.yaml"]) {
      const text = read(file);
      expect(text).toContain('securityContext: {{- include "canopy.podSecurityContext" $ | nindent 8 }}');
      expect(text).toContain(
        'securityContext: {{- include "canopy.containerSecurityContext" $ | nindent 12 }}',
      );
      expect(text).toContain('volumes: {{- include "canopy.tmpVolume" $ | nindent 8 }}');
      expect(text).toContain("- { name: tmp, mountPath: /tmp }");
      expect(text).toContain("automountServiceAccountToken: false");
      expect(text).toContain("resources: {{ toJson ($svc.resources | default $.Values.resources) }}");
    }
  });

  it("probes each Deployment on its health port, and leaves replicas to an enabled HPA", () => {
    const text = read("deployments.yaml");
    expect(text).toContain("startupProbe: { httpGet: { path: /-/liveness, port: health }");
    expect(text).toContain("livenessProbe: { httpGet: { path: /-/liveness, port: health }");
    expect(text).toContain("readinessProbe: { httpGet: { path: /-/readiness, port: health }");
    expect(text).toContain("- { name: health, containerPort: {{ $.Values.healthPort }} }");
    expect(guardsOf(text, "replicas: {{ $svc.replicas }}")).toContain("if not $autoscaling.enabled");
    // The Service carries the health port too, for a ServiceMonitor.
    expect(text).toContain("- { name: health, port: {{ $.Values.healthPort }}, targetPort: health }");
  });

  it("gives the call-signing key only to gRPC clients, the verify key only to gRPC services", () => {
    const helpers = read("_helpers.tpl");
    expect(guardsOf(helpers, "- name: CANOPY_GATEWAY_SIGNING_KEY")).toContain(
      "if has $name $.Values.networkPolicy.grpcClients",
    );
    expect(guardsOf(helpers, "- name: CANOPY_GATEWAY_VERIFY_KEY")).toContain("if $svc.grpc");
    expect(guardsOf(helpers, "- name: CANOPY_DATABASE_URL")).toContain("if $.Values.databaseUrlSecret.name");
  });

  it.each([
    [
      "autoscalers.yaml",
      "kind: HorizontalPodAutoscaler",
      ["range $name, $svc := .Values.services", "if $autoscaling.enabled"],
    ],
    ["disruption-budgets.yaml", "kind: PodDisruptionBudget", ["if .Values.podDisruptionBudget.enabled"]],
    ["service-monitor.yaml", "kind: ServiceMonitor", ["with .Values.serviceMonitor", "if .enabled"]],
    ["ingress.yaml", "kind: Ingress", ["with .Values.ingress", "if .enabled", "if $svc.http"]],
    ["migrations-job.yaml", "kind: Job", ["if .Values.migrations.enabled"]],
    ["networkpolicies.yaml", "egress:\n", ["if .Values.networkPolicy.enabled", "if $egress.enabled"]],
  ])("%s: %j only under its values switch", (file, needle, guards) => {
    expect(guardsOf(read(file), needle)).toEqual(expect.arrayContaining(guards));
  });

  it("points the optional objects at the right API versions and ports", () => {
    expect(read("autoscalers.yaml")).toContain("apiVersion: autoscaling/v2");
    expect(read("autoscalers.yaml")).toContain("kind: Deployment, name: canopy-{{ $name }}");
    expect(read("disruption-budgets.yaml")).toContain("apiVersion: policy/v1");
    expect(read("service-monitor.yaml")).toContain("apiVersion: monitoring.coreos.com/v1");
    expect(read("service-monitor.yaml")).toContain("- { port: health, path: /metrics");
    expect(read("ingress.yaml")).toContain(
      "backend: { service: { name: canopy-{{ $name }}, port: { name: http } } }",
    );
    const policies = read("networkpolicies.yaml");
    expect(policies).toContain("- ports: [{ port: 53, protocol: UDP }, { port: 53, protocol: TCP }]");
    expect(guardsOf(policies, "- ports: [{ port: {{ $o.grpc.port }}")).toContain(
      "if has $name $.Values.networkPolicy.grpcClients",
    );
    expect(policies).toContain("range index $egress.byService $name | default list");
  });

  it("migrates before install and upgrade with `<command> migrate`, once per service with a schema", () => {
    const job = read("migrations-job.yaml");
    expect(job).toContain("helm.sh/hook: pre-install,pre-upgrade");
    expect(job).toContain("helm.sh/hook-delete-policy: before-hook-creation,hook-succeeded");
    expect(job).toContain("restartPolicy: Never");
    expect(guardsOf(job, 'command: {{ toJson (append $svc.command "migrate") }}')).toContain("if $svc.grpc");
    // `if $svc.grpc` stands for "is a kit service": each of those runs runMain (which knows
    // `migrate`), and a process without gRPC (the gateway) has no schema.
    for (const service of readManifest().services) {
      const main = path.join(ROOT, service.workspace, "src", "main.ts");
      expect([service.name, existsSync(main) && /\brunMain\(/.test(readFileSync(main, "utf8"))]).toEqual([
        service.name,
        Boolean(service.grpc),
      ]);
    }
  });
});
