// services.json (the one list of Canopy's processes), typed for the e2e stack.
import { readFileSync } from "node:fs";
import path from "node:path";

export const REPO_ROOT = path.resolve(__dirname, "..", "..", "..");

export interface ServiceEntry {
  name: string;
  workspace: string;
  entry: string;
  /** V8 settings given on the command line before the entry (deploy/lib/manifest.cjs `commandOf`). */
  nodeArgs?: string[];
  grpc?: { portVariable: string; defaultPort: number; addressVariable: string };
  http?: { portVariable: string; defaultPort: number };
  healthPortVariable: string;
}

/** The services, in start order. */
export const SERVICES: ServiceEntry[] = JSON.parse(
  readFileSync(path.join(REPO_ROOT, "services.json"), "utf8"),
).services;

/** How the launcher addresses a gRPC service's replicas (deploy/lib/manifest.cjs `grpcTarget`). */
export const grpcTarget = (ports: number[]) =>
  ports.length === 1 ? `127.0.0.1:${ports[0]}` : `ipv4:${ports.map((p) => `127.0.0.1:${p}`).join(",")}`;

/** CANOPY_REPLICAS as the launcher reads it: unset or empty is 1. */
export const replicasFromEnv = (value = process.env.CANOPY_REPLICAS) => (value ? Number(value) : 1);
