import { createHash, generateKeyPairSync } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConfigError, loadCallSigner, loadCallVerifier, stateDir } from "@canopy/kit";

const METHOD = "/canopy.auth.v1.AuthService/GetUser";
const REQUEST = Buffer.from("request bytes");

const dirs: string[] = [];
const freshStateDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-keys-"));
  dirs.push(dir);
  return path.join(dir, "state");
};
afterEach(() => {
  jest.restoreAllMocks();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** Whether `verifier` accepts what `signer` signs. */
const agree = (signer: ReturnType<typeof loadCallSigner>, verifier: ReturnType<typeof loadCallVerifier>) =>
  verifier.check(signer.sign(METHOD, REQUEST), METHOD, digestOf(REQUEST)) === null;
const digestOf = (bytes: Buffer) => createHash("sha256").update(bytes).digest("base64url");

describe("the local default: one keypair file every process on the machine shares", () => {
  it("is created once, readable only by its owner, and gateway and services agree on it", () => {
    const config = { CANOPY_STATE_DIR: freshStateDir() };
    const signer = loadCallSigner(config);
    const [file] = fs.readdirSync(config.CANOPY_STATE_DIR);
    const full = path.join(config.CANOPY_STATE_DIR, file!);
    expect(fs.statSync(full).mode & 0o777).toBe(0o600);
    const pem = fs.readFileSync(full, "utf8");
    expect(pem).toContain("-----BEGIN PRIVATE KEY-----");

    expect(agree(signer, loadCallVerifier(config))).toBe(true);
    expect(agree(loadCallSigner(config), loadCallVerifier(config))).toBe(true);
    expect(fs.readFileSync(full, "utf8")).toBe(pem);
    expect(fs.readdirSync(config.CANOPY_STATE_DIR)).toEqual([file]);
  });

  it("a process that loses the race to create it uses the winner's key and leaves no temporary file", () => {
    const config = { CANOPY_STATE_DIR: freshStateDir() };
    const winner = loadCallSigner(config);
    // The loser looked before the winner's file appeared.
    jest.spyOn(fs, "existsSync").mockReturnValueOnce(false);
    const loser = loadCallVerifier(config);
    expect(agree(winner, loser)).toBe(true);
    expect(fs.readdirSync(config.CANOPY_STATE_DIR)).toHaveLength(1);
  });

  it("another state directory is another key", () => {
    const signer = loadCallSigner({ CANOPY_STATE_DIR: freshStateDir() });
    expect(agree(signer, loadCallVerifier({ CANOPY_STATE_DIR: freshStateDir() }))).toBe(false);
  });

  it("lives under XDG_STATE_HOME, else ~/.local/state, unless CANOPY_STATE_DIR says otherwise", () => {
    expect(stateDir({}, { XDG_STATE_HOME: "/var/state" })).toBe("/var/state/canopy");
    expect(stateDir({}, {})).toBe(path.join(os.homedir(), ".local", "state", "canopy"));
    expect(stateDir({ CANOPY_STATE_DIR: "/srv/canopy" }, { XDG_STATE_HOME: "/var/state" })).toBe(
      "/srv/canopy",
    );
  });
});

describe("configured keys (a cluster: the gateway holds the private key, services the public one)", () => {
  const pair = generateKeyPairSync("ed25519");
  const privatePem = pair.privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  const publicPem = pair.publicKey.export({ type: "spki", format: "pem" }).toString();

  it("take PEM or base64 of PEM, and a service needs no state directory", () => {
    const unused = freshStateDir();
    const signer = loadCallSigner({
      CANOPY_STATE_DIR: unused,
      CANOPY_GATEWAY_SIGNING_KEY: Buffer.from(privatePem).toString("base64"),
    });
    const verifier = loadCallVerifier({ CANOPY_STATE_DIR: unused, CANOPY_GATEWAY_VERIFY_KEY: publicPem });
    expect(agree(signer, verifier)).toBe(true);
    expect(fs.existsSync(unused)).toBe(false);
    // And the service does not fall back to a local key the gateway does not have.
    expect(agree(loadCallSigner({ CANOPY_STATE_DIR: unused }), verifier)).toBe(false);
  });

  it("refuse a key that is not Ed25519, or not a key, naming the variable", () => {
    const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const rsaPublic = rsa.publicKey.export({ type: "spki", format: "pem" }).toString();
    const problemsOf = (load: () => unknown) => {
      try {
        load();
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as ConfigError).problems;
      }
      throw new Error("the key was accepted");
    };
    expect(problemsOf(() => loadCallVerifier({ CANOPY_GATEWAY_VERIFY_KEY: rsaPublic }))).toEqual([
      "CANOPY_GATEWAY_VERIFY_KEY is invalid: not an Ed25519 key",
    ]);
    expect(problemsOf(() => loadCallSigner({ CANOPY_GATEWAY_SIGNING_KEY: "not a key" }))).toEqual([
      "CANOPY_GATEWAY_SIGNING_KEY is invalid: not a PEM key",
    ]);
  });
});
