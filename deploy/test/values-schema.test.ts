// helm/canopy/values.schema.json against the values the chart ships with: values.yaml, each
// helm/canopy/ci/ file and Tilt's deploy/tilt/values.yaml, each merged over values.yaml the way Helm
// merges them; and values the schema must refuse. `helm lint` / `helm template` run only where a helm
// binary is on PATH; elsewhere those tests are reported skipped, saying why.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { parse, parseAllDocuments } from "yaml";
import { ROOT } from "../lib/manifest.cjs";

// ajv 8 as the gateway declares it (the root's ajv is ESLint's ajv 6, not ours to rely on).
const Ajv = createRequire(path.join(ROOT, "gateway", "package.json"))("ajv");

type Values = Record<string, unknown>;
const CHART = path.join(ROOT, "helm/canopy");
const readYaml = (file: string): Values => parse(readFileSync(file, "utf8")) ?? {};
const schema = JSON.parse(readFileSync(path.join(CHART, "values.schema.json"), "utf8"));
const defaults = readYaml(path.join(CHART, "values.yaml"));
const ciFiles = readdirSync(path.join(CHART, "ci"))
  .filter((f) => f.endsWith(".yaml"))
  .map((f) => `helm/canopy/ci/${f}`);
const valueFiles = [...ciFiles, "deploy/tilt/values.yaml"];

const isMap = (v: unknown): v is Values => typeof v === "object" && v !== null && !Array.isArray(v);
/** Helm's coalescing of a values file over the chart's: maps merge, lists and scalars replace, null removes. */
function coalesce(base: Values, over: Values): Values {
  const out: Values = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value === null) delete out[key];
    else out[key] = isMap(value) && isMap(base[key]) ? coalesce(base[key] as Values, value) : value;
  }
  return out;
}

// Strict, but for `required` inside a service's anyOf (grpc or http), which names properties the
// enclosing schema defines.
const ajv = new Ajv({ strict: true, strictRequired: false, allErrors: true, allowUnionTypes: true });
const validate = ajv.compile(schema);
const errorsOf = (values: Values) =>
  validate(values)
    ? []
    : validate.errors!.map(
        (e: { instancePath: string; message: string }) => `${e.instancePath} ${e.message}`,
      );

describe("values.schema.json", () => {
  it("is a draft-07 schema that Ajv compiles in strict mode (no unknown keywords or formats)", () => {
    expect(schema.$schema).toBe("http://json-schema.org/draft-07/schema#");
    expect(schema.additionalProperties).toBe(false);
  });

  it("accepts values.yaml, which sets every key the schema knows (so none needs to be required)", () => {
    expect(errorsOf(defaults)).toEqual([]);
    expect(Object.keys(defaults).sort()).toEqual(Object.keys(schema.properties).sort());
  });

  it("finds the ci/ values files (minimal, full)", () => {
    expect(ciFiles).toEqual(
      expect.arrayContaining(["helm/canopy/ci/minimal.yaml", "helm/canopy/ci/full.yaml"]),
    );
  });

  it.each(valueFiles)("accepts %s merged over values.yaml", (file) => {
    const values = coalesce(defaults, readYaml(path.join(ROOT, file)));
    expect(errorsOf(values)).toEqual([]);
  });

  it("full.yaml turns on every optional object", () => {
    const full = coalesce(defaults, readYaml(path.join(CHART, "ci/full.yaml")));
    expect(full).toMatchObject({
      autoscaling: { enabled: true },
      ingress: { enabled: true },
      serviceMonitor: { enabled: true },
      podDisruptionBudget: { enabled: true },
      migrations: { enabled: true },
      networkPolicy: { enabled: true, egress: { enabled: true } },
    });
  });

  const bad: [string, Values, string][] = [
    ["a misspelt top-level key", { replica: 3 }, "must NOT have additional properties"],
    [
      "a service's replicas as a string",
      { services: { auth: { replicas: "2" } } },
      "/services/auth/replicas must be integer",
    ],
    [
      "an unknown key in a service",
      { services: { auth: { replicaCount: 2 } } },
      "must NOT have additional properties",
    ],
    ["root as the pods' user", { runAs: { user: 0, group: 0 } }, "/runAs/user must be >= 1"],
    [
      "an Ingress with no host",
      { ingress: { enabled: true, host: "" } },
      "/ingress/host must NOT have fewer than 1 characters",
    ],
    [
      "a pull policy Kubernetes does not know",
      { image: { pullPolicy: "Sometimes" } },
      "/image/pullPolicy must be equal to one of the allowed values",
    ],
    [
      "a memory request that is no quantity",
      { resources: { requests: { memory: "lots" } } },
      "/resources/requests/memory",
    ],
    [
      "an egress rule with a misspelt key",
      { networkPolicy: { egress: { enabled: true, common: [{ too: [] }] } } },
      "/networkPolicy/egress/common/0 must NOT have additional properties",
    ],
    [
      "a database URL that is not PostgreSQL's",
      { databaseUrl: "mysql://db/canopy" },
      "/databaseUrl must match pattern",
    ],
    [
      "an event stream name NATS refuses",
      { eventStream: "canopy.events" },
      "/eventStream must match pattern",
    ],
  ];
  it.each(bad)("refuses %s", (_what, override, message) => {
    expect(errorsOf(coalesce(defaults, override)).join("\n")).toContain(message);
  });

  it("refuses a values file missing what a template reads (a key removed with null)", () => {
    const values = coalesce(defaults, { callKeys: { verifyKey: null } });
    expect(errorsOf(values)).toContain("/callKeys must have required property 'verifyKey'");
  });
});

const helmVersion = spawnSync("helm", ["version", "--short"], { encoding: "utf8" });
const haveHelm = !helmVersion.error && helmVersion.status === 0;
const helmTest = haveHelm ? it : it.skip;
const unlessHelm = haveHelm ? "" : " [skipped: no helm binary on PATH]";
const helm = (...args: string[]) => spawnSync("helm", args, { cwd: ROOT, encoding: "utf8" });

describe("helm (the binary)", () => {
  helmTest(`lints the chart with values.yaml and each values file${unlessHelm}`, () => {
    for (const file of [undefined, ...valueFiles]) {
      const result = helm("lint", "helm/canopy", "--strict", ...(file ? ["-f", file] : []));
      expect(`${file}: ${result.status} ${result.stdout}${result.stderr}`).toBe(
        `${file}: 0 ${result.stdout}${result.stderr}`,
      );
    }
  });

  helmTest(`refuses to render values the schema refuses${unlessHelm}`, () => {
    const result = helm("template", "canopy", "helm/canopy", "--set", "runAs.user=0");
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("runAs");
  });

  helmTest(`renders hardened Deployments and the optional objects as the values ask${unlessHelm}`, () => {
    for (const file of ["helm/canopy/ci/minimal.yaml", "helm/canopy/ci/full.yaml"]) {
      const result = helm("template", "canopy", "helm/canopy", "-f", file);
      expect(result.stderr).toBe("");
      const objects = parseAllDocuments(result.stdout)
        .map((d) => d.toJSON())
        .filter(Boolean);
      const kinds = new Set(objects.map((o) => o.kind));
      const full = file.endsWith("full.yaml");
      for (const kind of ["HorizontalPodAutoscaler", "Ingress", "ServiceMonitor"])
        expect(kinds.has(kind)).toBe(full);
      for (const kind of ["Deployment", "Service", "NetworkPolicy", "PodDisruptionBudget", "Job"])
        expect(kinds.has(kind)).toBe(true);
      for (const pod of objects
        .filter((o) => ["Deployment", "Job"].includes(o.kind))
        .map((o) => o.spec.template.spec)) {
        expect(pod.securityContext).toMatchObject({
          runAsNonRoot: true,
          seccompProfile: { type: "RuntimeDefault" },
        });
        for (const container of pod.containers) {
          expect(container.securityContext).toEqual({
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            capabilities: { drop: ["ALL"] },
          });
          expect(container.volumeMounts).toContainEqual({ name: "tmp", mountPath: "/tmp" });
        }
      }
      const job = objects.find((o) => o.kind === "Job");
      expect(job.metadata.annotations["helm.sh/hook"]).toBe("pre-install,pre-upgrade");
      for (const container of job.spec.template.spec.containers)
        expect(container.command.at(-1)).toBe("migrate");
    }
  });
});
