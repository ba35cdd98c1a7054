import { isIP } from "node:net";
import type { ConnectionOptions } from "node:tls";
import { Client, InvalidCredentialsError, ResultCodeError } from "ldapts";
import type { LdapServer } from "./config";

/**
 * The directory cannot be used: unreachable, too slow, TLS refused, or the service account's bind
 * refused. Sign-in treats it as a failed sign-in; sync marks the group's sync failed with `message`.
 */
export class LdapConnectionError extends Error {
  override readonly name = "LdapConnectionError";
  constructor(
    readonly provider: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** TLS as the server's `verify_certificates` and `ca_file` say; the host name is checked too. */
export function tlsOptionsFor(server: LdapServer): ConnectionOptions {
  return {
    rejectUnauthorized: server.verifyCertificates,
    ...(server.ca ? { ca: server.ca } : {}),
    // SNI takes host names only.
    ...(isIP(server.host) ? {} : { servername: server.host }),
  };
}

/**
 * A connection to the server, TLS set up per `encryption`: `simple_tls` is ldaps://, `start_tls`
 * upgrades a plain connection before anything else is sent. Not bound yet.
 */
export async function connectToLdap(server: LdapServer): Promise<Client> {
  const tls = tlsOptionsFor(server);
  const scheme = server.encryption === "simple_tls" ? "ldaps" : "ldap";
  const host = isIP(server.host) === 6 ? `[${server.host}]` : server.host;
  const client = new Client({
    url: `${scheme}://${host}:${server.port}`,
    timeout: server.timeout * 1000,
    connectTimeout: server.timeout * 1000,
    // ldapts speaks TLS from the start whenever tlsOptions are given, so only ldaps:// gets them.
    ...(scheme === "ldaps" ? { tlsOptions: tls } : {}),
    // DNs come back from the server; they are compared normalized, not parsed by the client.
    strictDN: false,
  });
  if (server.encryption === "start_tls") {
    try {
      await client.startTLS(tls);
    } catch (e) {
      await client.unbind().catch(() => undefined);
      throw connectionError(server, e);
    }
  }
  return client;
}

/** A connection bound as the service account (`bind_dn`), or anonymous when none is configured. */
export async function connectAsService(server: LdapServer): Promise<Client> {
  const client = await connectToLdap(server);
  try {
    if (server.bindDn || server.password) await client.bind(server.bindDn ?? "", server.password ?? "");
    else await client.search("", { scope: "base", attributes: ["1.1"] }); // reach it now, not on first use
    return client;
  } catch (e) {
    await client.unbind().catch(() => undefined);
    throw connectionError(server, e);
  }
}

/** The error as an LdapConnectionError whose message says what failed, never with a password. */
export function connectionError(server: LdapServer, e: unknown): LdapConnectionError {
  if (e instanceof LdapConnectionError) return e;
  const where = `LDAP server ${server.provider} (${server.host}:${server.port})`;
  const detail = e instanceof Error ? e.message : String(e);
  if (e instanceof InvalidCredentialsError)
    return new LdapConnectionError(server.provider, `${where} refused the service account's bind`, {
      cause: e,
    });
  if (/timeout|timed out/i.test(detail))
    return new LdapConnectionError(server.provider, `${where} did not answer within ${server.timeout} s`, {
      cause: e,
    });
  return new LdapConnectionError(server.provider, `${where} cannot be used: ${detail}`, { cause: e });
}

/** A result code (no such object, invalid filter, size limit...) rather than a broken connection. */
export const isResultCodeError = (e: unknown): e is ResultCodeError => e instanceof ResultCodeError;
