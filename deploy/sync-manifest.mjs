// `npm run manifest:sync`: writes what services.json implies into the files that cannot read it
// themselves — package.json workspaces, tsconfig.build.json references and the `services:` block of
// helm/canopy/values.yaml (keeping each service's replicas, resources, autoscaling and every
// comment). deploy/test/manifest.test.ts fails until they agree, so adding a service is its folder,
// one manifest entry, and this command.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { format, resolveConfig } from "prettier";
import { parseDocument } from "yaml";
import { commandOf, readManifest, ROOT } from "./lib/manifest.cjs";

const DEFAULT_REPLICAS = 2;
const manifest = readManifest();
const workspaces = [...manifest.libraries, ...manifest.services, ...manifest.tools].map((w) => w.workspace);

/**
 * Rewrites `file` with `change` (which returns undefined when nothing needs to change), formatted as
 * `npm run format` would.
 */
async function update(file, change) {
  const full = path.join(ROOT, file);
  const before = readFileSync(full, "utf8");
  const changed = change(before);
  if (changed === undefined) return console.log(`${file}: up to date`);
  const after = await format(changed, { ...(await resolveConfig(full)), filepath: full });
  writeFileSync(full, after);
  console.log(`${file}: updated`);
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

const editJson = (change) => (text) => {
  const data = JSON.parse(text);
  const before = JSON.parse(text);
  change(data);
  if (same(before, data)) return undefined;
  // `{ "path": "gateway" }` on one line, as tsconfig.build.json is written by hand.
  return `${JSON.stringify(data, null, 2).replace(/\{\s+("path": "[^"]+")\s+\}/g, "{ $1 }")}\n`;
};

await update(
  "package.json",
  editJson((pkg) => (pkg.workspaces = workspaces)),
);
await update(
  "tsconfig.build.json",
  editJson((config) => (config.references = workspaces.map((workspace) => ({ path: workspace })))),
);
await update("helm/canopy/values.yaml", (text) => {
  const doc = parseDocument(text);
  const before = doc.toJSON();
  for (const name of Object.keys(doc.get("services").toJSON())) {
    if (!manifest.services.some((s) => s.name === name)) doc.deleteIn(["services", name]);
  }
  for (const service of manifest.services) {
    // The manifest owns command, grpc and http; anything else in an entry (replicas, resources,
    // autoscaling, and comments) is the operator's and stays as it is.
    const owned = { command: commandOf(service) };
    if (service.grpc) {
      const { defaultPort: port, portVariable, addressVariable } = service.grpc;
      owned.grpc = { port, portVariable, addressVariable };
    }
    if (service.http) {
      const { defaultPort: port, portVariable } = service.http;
      owned.http = { port, portVariable };
    }
    if (!doc.hasIn(["services", service.name])) {
      doc.setIn(["services", service.name], doc.createNode({ ...owned, replicas: DEFAULT_REPLICAS }));
    }
    for (const key of ["command", "grpc", "http"]) {
      if (owned[key] === undefined) {
        doc.deleteIn(["services", service.name, key]);
        continue;
      }
      // Flow style for the small maps and lists, as the file is written by hand.
      const node = doc.createNode(owned[key]);
      node.flow = true;
      if (key === "command") for (const item of node.items) item.type = "QUOTE_DOUBLE";
      doc.setIn(["services", service.name, key], node);
    }
  }
  return same(before, doc.toJSON()) ? undefined : doc.toString({ lineWidth: 0 });
});
