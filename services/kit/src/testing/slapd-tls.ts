import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";

export interface TestCertificates {
  /** PEM of the test CA: what `ca_file` names for verification to pass. */
  caFile: string;
  certFile: string;
  keyFile: string;
}

/**
 * A throwaway CA and a server certificate it signed for `localhost` and `127.0.0.1`, made with the
 * openssl command (Node cannot issue certificates). EC keys: a few milliseconds each.
 */
export function makeTestCertificates(dir: string): TestCertificates {
  const file = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync("openssl", args, { stdio: "pipe" });
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  openssl(
    "req",
    "-x509",
    ...ec,
    "-subj",
    "/CN=Canopy test CA",
    "-days",
    "2",
    "-keyout",
    file("ca.key"),
    "-out",
    file("ca.pem"),
  );
  openssl("req", ...ec, "-subj", "/CN=localhost", "-keyout", file("server.key"), "-out", file("server.csr"));
  writeFileSync(file("server.ext"), "subjectAltName=DNS:localhost,IP:127.0.0.1\n");
  openssl(
    "x509",
    "-req",
    "-in",
    file("server.csr"),
    "-CA",
    file("ca.pem"),
    "-CAkey",
    file("ca.key"),
    "-CAcreateserial",
    "-out",
    file("server.pem"),
    "-days",
    "2",
    "-extfile",
    file("server.ext"),
  );
  return { caFile: file("ca.pem"), certFile: file("server.pem"), keyFile: file("server.key") };
}
