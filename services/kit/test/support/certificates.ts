import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** Files of one throwaway certificate authority and certificates it signed, made with openssl. */
export interface TestPki {
  dir: string;
  ca: string;
  /** Issue a certificate for `name` (valid for localhost and 127.0.0.1); returns its cert and key files. */
  issue(name: string): { cert: string; key: string };
  remove(): void;
}

const openssl = (cwd: string, ...args: string[]) => execFileSync("openssl", args, { cwd, stdio: "pipe" });
const EC = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];

export function testPki(): TestPki {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-pki-"));
  openssl(
    dir,
    "req",
    "-x509",
    ...EC,
    "-keyout",
    "ca.key",
    "-out",
    "ca.crt",
    "-days",
    "1",
    "-subj",
    "/CN=test-ca",
  );
  fs.writeFileSync(path.join(dir, "san.ext"), "subjectAltName=DNS:localhost,IP:127.0.0.1\n");
  return {
    dir,
    ca: path.join(dir, "ca.crt"),
    issue(name) {
      openssl(dir, "req", ...EC, "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", `/CN=${name}`);
      openssl(
        dir,
        "x509",
        "-req",
        "-in",
        `${name}.csr`,
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-days",
        "1",
        "-extfile",
        "san.ext",
        "-out",
        `${name}.crt`,
      );
      return { cert: path.join(dir, `${name}.crt`), key: path.join(dir, `${name}.key`) };
    },
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
