// services.json is the one list of processes; whatever cannot read it directly (npm workspaces,
// tsconfig references, the Dockerfile, the Helm values) is checked against it here. When one of
// these fails after a manifest change, `npm run manifest:sync` rewrites the workspaces, the
// references and the Helm values.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { commandOf, readManifest, ROOT } from "../lib/manifest.cjs";

interface Workspace {
  package: string;
  workspace: string;
}
interface Service extends Workspace {
  name: string;
  entry: string;
  nodeArgs?: string[];
  grpc?: { portVariable: string; defaultPort: number; addressVariable: string };
  http?: { portVariable: string; defaultPort: number };
  healthPortVariable: string;
}

const manifest = readManifest() as { libraries: Workspace[]; tools: Workspace[]; services: Service[] };
const all = [...manifest.libraries, ...manifest.tools, ...manifest.services];
const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");
const json = (file: string) => JSON.parse(read(file));
const sorted = (values: string[]) => [...values].sort();
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("services.json", () => {
  it("lists exactly the npm workspaces, each under its own package name", () => {
    expect(sorted(all.map((w) => w.workspace))).toEqual(sorted(json("package.json").workspaces));
    for (const { workspace, package: name } of all) {
      expect(json(`${workspace}/package.json`).name).toBe(name);
    }
  });

  it("names each service once, with an entry built from its own src/main.ts", () => {
    const names = manifest.services.map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
    for (const service of manifest.services) {
      expect(service.name).toMatch(/^[a-z][a-z0-9-]*$/);
      expect(service.entry).toBe(`${service.workspace}/dist/main.js`);
      expect(existsSync(path.join(ROOT, service.workspace, "src", "main.ts"))).toBe(true);
      const variable = service.name.toUpperCase().replace(/-/g, "_");
      expect(service.healthPortVariable).toBe(`CANOPY_${variable}_HEALTH_PORT`);
      if (service.grpc) {
        expect(service.grpc.portVariable).toBe(`CANOPY_${variable}_GRPC_PORT`);
        expect(service.grpc.addressVariable).toBe(`CANOPY_${variable}_ADDRESS`);
      }
      expect(service.grpc ?? service.http).toBeDefined();
    }
  });

  it("gives every process its own default port", () => {
    const ports = manifest.services.map((s) => (s.grpc ?? s.http)!.defaultPort);
    expect(new Set(ports).size).toBe(ports.length);
  });

  it("lists every folder of services/ that has a main.ts", () => {
    const folders = readdirSync(path.join(ROOT, "services"))
      .filter((name) => existsSync(path.join(ROOT, "services", name, "src", "main.ts")))
      .map((name) => `services/${name}`);
    const listed = manifest.services.map((s) => s.workspace).filter((w) => w.startsWith("services/"));
    expect(sorted(listed)).toEqual(sorted(folders));
  });
});

describe("what builds and ships the services", () => {
  it("tsconfig.build.json (npm run build) builds every workspace", () => {
    const references = json("tsconfig.build.json").references.map((r: { path: string }) => r.path);
    expect(sorted(references)).toEqual(sorted(all.map((w) => w.workspace)));
  });

  it("the Dockerfile copies the manifest and every workspace's folder, and builds from the manifest", () => {
    const dockerfile = read("deploy/Dockerfile");
    expect(dockerfile).toMatch(/^COPY .*\bservices\.json \.\/$/m);
    for (const { workspace } of [...manifest.libraries, ...manifest.services]) {
      const top = workspace.split("/")[0];
      expect(dockerfile).toMatch(new RegExp(`^COPY ${top} ${top}$`, "m"));
    }
    for (const { workspace } of manifest.tools) {
      expect(dockerfile).toMatch(new RegExp(`^COPY ${workspace}/package\\.json `, "m"));
    }
    // `docker run canopy` runs the gateway as the launcher and the Helm chart do, node arguments included.
    const gateway = manifest.services.find((s) => s.name === "gateway")!;
    const cmd = `CMD [${commandOf(gateway)
      .map((arg: string) => JSON.stringify(arg))
      .join(", ")}]`;
    expect(dockerfile).toMatch(new RegExp(`^${escape(cmd)}$`, "m"));
    // The build step reads the manifest instead of a hand-kept list of workspaces.
    expect(dockerfile).toMatch(/npx tsc -b \$\(node -p ".*require\('\.\/services\.json'\)/);
  });
});

describe("the Tiltfile", () => {
  it("takes its resources from services.json, naming none itself", () => {
    const tiltfile = read("Tiltfile");
    expect(tiltfile).toContain("read_json('services.json')");
    for (const { name } of manifest.services) expect(tiltfile).not.toContain(`canopy-${name}`);
  });

  it("builds the image from deploy/Dockerfile and deploys helm/canopy with Tilt's own values", () => {
    const tiltfile = read("Tiltfile");
    expect(tiltfile).toContain("docker_build('canopy', '.', dockerfile='deploy/Dockerfile'");
    expect(tiltfile).toContain("helm('helm/canopy', values=['deploy/tilt/values.yaml']");
    expect(tiltfile).toContain("k8s_yaml('deploy/tilt/infra.yaml')");
    // The image Tilt builds is the one the chart's values name.
    expect(parse(read("helm/canopy/values.yaml")).image.repository).toBe("canopy");
  });
});

describe("helm/canopy", () => {
  const values = parse(read("helm/canopy/values.yaml"));

  it("parses (Chart.yaml and values.yaml; the templates are Go templates, left to helm lint)", () => {
    expect(parse(read("helm/canopy/Chart.yaml"))).toMatchObject({ apiVersion: "v2", name: "canopy" });
    expect(values.services).toEqual(expect.any(Object));
  });

  it("has one values entry per service, with the manifest's command, ports and variables", () => {
    expect(sorted(Object.keys(values.services))).toEqual(sorted(manifest.services.map((s) => s.name)));
    for (const service of manifest.services) {
      const entry = values.services[service.name];
      expect(entry.command).toEqual(["node", ...(service.nodeArgs ?? []), service.entry]);
      expect(entry.replicas).toEqual(expect.any(Number));
      expect(entry.grpc).toEqual(
        service.grpc && {
          port: service.grpc.defaultPort,
          portVariable: service.grpc.portVariable,
          addressVariable: service.grpc.addressVariable,
        },
      );
      expect(entry.http).toEqual(
        service.http && { port: service.http.defaultPort, portVariable: service.http.portVariable },
      );
    }
  });

  it("binds inside pods on every interface and lets only the gateway call the services", () => {
    expect(values.bind).toEqual({ grpcHost: "0.0.0.0", healthHost: "0.0.0.0" });
    expect(values.networkPolicy).toMatchObject({ enabled: true, grpcClients: ["gateway"] });
    for (const client of values.networkPolicy.grpcClients) expect(values.services[client]).toBeDefined();
  });

  it("passes CANOPY_LDAP_SERVERS from a Secret's key (it holds bind passwords) to the processes that read it", () => {
    // No LDAP unless a Secret is named; the default key; only services the manifest knows.
    expect(values.ldap.serversSecret).toEqual({ name: "", key: "servers" });
    expect(sorted(values.ldap.services)).toEqual(["auth", "gateway", "ldap"]);
    for (const name of values.ldap.services) expect(values.services[name]).toBeDefined();
    // The env list (shared by the Deployments and the migrations Job, in _helpers.tpl) reads the
    // variable from secretKeyRef only, gated on a name and on the list.
    const env = read("helm/canopy/templates/_helpers.tpl");
    const block =
      /\{\{- with \$\.Values\.ldap\.serversSecret \}\}([\s\S]*?)\{\{- end \}\}\s*\{\{- end \}\}/.exec(
        env,
      )?.[1];
    expect(block).toBeDefined();
    expect(block).toContain("{{- if and .name (has $name $.Values.ldap.services) }}");
    expect(block).toContain("- name: CANOPY_LDAP_SERVERS");
    expect(block).toContain(
      "valueFrom: { secretKeyRef: { name: {{ .name | quote }}, key: {{ .key | quote }} } }",
    );
    expect(env.match(/CANOPY_LDAP_SERVERS/g)).toHaveLength(1);
    // Inside the container's env list, after the address variables; the list comes before envFrom.
    const envList = env.slice(env.indexOf('{{- define "canopy.env" -}}'));
    expect(envList.indexOf("CANOPY_LDAP_SERVERS")).toBeGreaterThan(envList.indexOf("addressVariable"));
    const deployments = read("helm/canopy/templates/deployments.yaml");
    expect(deployments.indexOf('include "canopy.env"')).toBeGreaterThan(0);
    expect(deployments.indexOf('include "canopy.env"')).toBeLessThan(deployments.indexOf("envFrom:"));
    expect(deployments).not.toContain("CANOPY_LDAP_SERVERS");
  });

  it("templates name no service: every Deployment, Service and policy comes from the values", () => {
    const templates = readdirSync(path.join(ROOT, "helm/canopy/templates"));
    expect(templates).toEqual(expect.arrayContaining(["deployments.yaml", "networkpolicies.yaml"]));
    for (const file of templates) {
      const text = read(`helm/canopy/templates/${file}`);
      for (const { name } of manifest.services) {
        expect(text).not.toMatch(new RegExp(`\\.Values\\.services\\.${name}\\b|canopy-${name}\\b`));
      }
    }
  });
});
