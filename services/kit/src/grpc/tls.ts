import fs from "node:fs";
import { credentials, ServerCredentials, type ChannelCredentials } from "@grpc/grpc-js";
import { ConfigError, type BaseConfig } from "../config";

/**
 * Mutual TLS between the gateway and the services, on top of the signed call assertion: in a
 * cluster it encrypts the traffic and keeps anything without a certificate from the CA from even
 * opening a connection. Off by default (one machine talks over loopback).
 */
export interface GrpcTls {
  /** The CA that signs every Canopy certificate; both sides trust only it. */
  ca: Buffer;
  /** This process's certificate chain and key (a server's, or the gateway's as a client). */
  cert: Buffer;
  key: Buffer;
}

export type GrpcTlsConfig = Pick<
  BaseConfig,
  "CANOPY_GRPC_TLS_CA" | "CANOPY_GRPC_TLS_CERT" | "CANOPY_GRPC_TLS_KEY"
>;

const VARIABLES = ["CANOPY_GRPC_TLS_CA", "CANOPY_GRPC_TLS_CERT", "CANOPY_GRPC_TLS_KEY"] as const;

/** The files named by `CANOPY_GRPC_TLS_CA/CERT/KEY`, or null when none is set. Read once, at start. */
export function loadGrpcTls(config: GrpcTlsConfig): GrpcTls | null {
  const unset = VARIABLES.filter((name) => !config[name]);
  if (unset.length === VARIABLES.length) return null;
  if (unset.length)
    throw new ConfigError(unset.map((name) => `${name} is missing (the TLS files go together)`));
  const read = (name: (typeof VARIABLES)[number]) => {
    try {
      return fs.readFileSync(config[name]!);
    } catch (err) {
      throw new ConfigError([`${name} is invalid: ${(err as Error).message}`]);
    }
  };
  return {
    ca: read("CANOPY_GRPC_TLS_CA"),
    cert: read("CANOPY_GRPC_TLS_CERT"),
    key: read("CANOPY_GRPC_TLS_KEY"),
  };
}

/** A server that, with TLS, accepts only clients presenting a certificate from the CA. */
export const serverCredentials = (tls: GrpcTls | null | undefined) =>
  tls
    ? ServerCredentials.createSsl(tls.ca, [{ cert_chain: tls.cert, private_key: tls.key }], true)
    : ServerCredentials.createInsecure();

/** A client that, with TLS, trusts only servers with a certificate from the CA and shows its own. */
export const channelCredentials = (tls: GrpcTls | null | undefined): ChannelCredentials =>
  tls ? credentials.createSsl(tls.ca, tls.key, tls.cert) : credentials.createInsecure();
