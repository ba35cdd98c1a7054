import {
  randomBytes,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
} from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConfigError, type BaseConfig } from "./config";
import { CallSigner, CallVerifier } from "./grpc/call-assertion";

/**
 * Where the gateway's call-signing key comes from. In a cluster the gateway is given the private key
 * (`CANOPY_GATEWAY_SIGNING_KEY`) and every service only the public one (`CANOPY_GATEWAY_VERIFY_KEY`).
 * On one machine with no configuration, every process must still agree without the launcher's help:
 * the first process to start creates a keypair file under the state directory and all the others
 * read it.
 */
export type GatewayKeyConfig = Pick<
  BaseConfig,
  "CANOPY_STATE_DIR" | "CANOPY_GATEWAY_SIGNING_KEY" | "CANOPY_GATEWAY_VERIFY_KEY"
>;

const KEY_FILE = "gateway-call-signing-key.pem";

/** `$CANOPY_STATE_DIR`, else `$XDG_STATE_HOME/canopy`, else `~/.local/state/canopy`. */
export function stateDir(config: Pick<BaseConfig, "CANOPY_STATE_DIR">, env = process.env): string {
  if (config.CANOPY_STATE_DIR) return config.CANOPY_STATE_DIR;
  const base = env.XDG_STATE_HOME || path.join(os.homedir(), ".local", "state");
  return path.join(base, "canopy");
}

/** A PEM, or base64 of one (easier to pass through some secret stores). */
const pemOf = (value: string) =>
  value.includes("-----BEGIN") ? value : Buffer.from(value, "base64").toString("utf8");

function ed25519(name: string, read: () => KeyObject): KeyObject {
  let key: KeyObject;
  try {
    key = read();
  } catch {
    throw new ConfigError([`${name} is invalid: not a PEM key`]);
  }
  if (key.asymmetricKeyType !== "ed25519") throw new ConfigError([`${name} is invalid: not an Ed25519 key`]);
  return key;
}

/**
 * The shared local key: created once with mode 0600. It is written to a private temporary file and
 * then hard-linked into place, which fails if the name exists; so of two processes starting at once
 * one wins, and the other reads the winner's complete file (never a half-written one).
 */
function localPrivateKey(dir: string): KeyObject {
  const file = path.join(dir, KEY_FILE);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const pem = generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" });
    const temporary = `${file}.${process.pid}.${randomBytes(6).toString("hex")}`;
    fs.writeFileSync(temporary, pem, { mode: 0o600, flag: "wx" });
    try {
      fs.linkSync(temporary, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    } finally {
      fs.unlinkSync(temporary);
    }
  }
  return ed25519(file, () => createPrivateKey(fs.readFileSync(file, "utf8")));
}

/** The gateway's signer: from `CANOPY_GATEWAY_SIGNING_KEY` (PKCS#8), else the shared local file. */
export function loadCallSigner(config: GatewayKeyConfig): CallSigner {
  const configured = config.CANOPY_GATEWAY_SIGNING_KEY;
  const key = configured
    ? ed25519("CANOPY_GATEWAY_SIGNING_KEY", () => createPrivateKey(pemOf(configured)))
    : localPrivateKey(stateDir(config));
  return new CallSigner(key);
}

/** A service's verifier: from `CANOPY_GATEWAY_VERIFY_KEY` (SPKI), else the shared local file. */
export function loadCallVerifier(config: GatewayKeyConfig): CallVerifier {
  const configured = config.CANOPY_GATEWAY_VERIFY_KEY;
  const key = configured
    ? ed25519("CANOPY_GATEWAY_VERIFY_KEY", () => createPublicKey(pemOf(configured)))
    : createPublicKey(localPrivateKey(stateDir(config)));
  return new CallVerifier(key);
}
