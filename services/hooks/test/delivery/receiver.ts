// A real webhook receiver on 127.0.0.1 (HTTP, or HTTPS with a throwaway self-signed certificate)
// that records every request and answers with whatever the test's handler does.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TLSSocket } from "node:tls";

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  servername?: string;
}

export type Handler = (req: Received, res: http.ServerResponse) => void;

export interface Receiver {
  port: number;
  received: Received[];
  handle(handler: Handler): void;
  close(): Promise<void>;
}

export async function startReceiver(tls?: { key: string; cert: string }): Promise<Receiver> {
  const received: Received[] = [];
  let handler: Handler = (_req, res) => res.end("ok");
  const listener = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const entry: Received = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        servername: tls ? ((req.socket as TLSSocket).servername as string | undefined) : undefined,
      };
      received.push(entry);
      handler(entry, res);
    });
  };
  const server = tls ? https.createServer(tls, listener) : http.createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    received,
    handle: (h) => (handler = h),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A self-signed certificate for `hostname` (made with the openssl CLI). */
export function selfSignedCertificate(hostname: string): { key: string; cert: string } {
  const dir = mkdtempSync(path.join(tmpdir(), "hooks-tls-"));
  try {
    const key = path.join(dir, "key.pem");
    const cert = path.join(dir, "cert.pem");
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "1",
        "-subj",
        `/CN=${hostname}`,
        "-addext",
        `subjectAltName=DNS:${hostname}`,
        "-keyout",
        key,
        "-out",
        cert,
      ],
      { stdio: "ignore" },
    );
    return { key: readFileSync(key, "utf8"), cert: readFileSync(cert, "utf8") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
