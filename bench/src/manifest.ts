// services.json (the one list of Canopy's processes), typed for the bench stack. bench does not
// depend on e2e, so this is e2e/test/support/manifest.ts's smaller twin.
import { readFileSync } from "node:fs";
import path from "node:path";

export const REPO_ROOT = path.resolve(__dirname, "..", "..");

export interface ServiceEntry {
  name: string;
  entry: string;
  grpc?: { portVariable: string };
  healthPortVariable: string;
}

/** The services, in start order. */
export const SERVICES: ServiceEntry[] = JSON.parse(
  readFileSync(path.join(REPO_ROOT, "services.json"), "utf8"),
).services;
