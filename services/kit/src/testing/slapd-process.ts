import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer, connect } from "node:net";

// The process side of the throwaway slapd (slapd.ts): installing it, a free port, and waiting until
// the spawned server accepts connections.

export const SLAPD = "/usr/sbin/slapd";
export const SLAPADD = "/usr/sbin/slapadd";

/** Installs Debian's slapd and ldap-utils when missing (as root with apt-get); a clear error if it cannot. */
export function ensureSlapdInstalled(): void {
  if (existsSync(SLAPD) && existsSync(SLAPADD)) return;
  const canInstall = process.getuid?.() === 0 && existsSync("/usr/bin/apt-get");
  if (!canInstall)
    throw new Error(
      "the LDAP tests need OpenLDAP's slapd: apt-get install slapd ldap-utils (as root), or run npm test as root",
    );
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const apt = (...args: string[]) => execFileSync("apt-get", args, { env, stdio: "pipe" });
  try {
    apt("install", "-y", "-qq", "slapd", "ldap-utils");
  } catch {
    apt("update", "-qq");
    apt("install", "-y", "-qq", "slapd", "ldap-utils");
  }
  if (!existsSync(SLAPD)) throw new Error("apt-get installed slapd but /usr/sbin/slapd is missing");
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function waitUntilListening(port: number, exited: Promise<number | null>, output: () => string) {
  let gone: number | null | undefined;
  void exited.then((code) => (gone = code));
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (gone !== undefined) throw new Error(`slapd exited (${gone}) before listening:\n${output()}`);
    if (await accepts(port)) return;
    if (Date.now() > deadline) throw new Error(`slapd did not listen on ${port} within 10 s:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
