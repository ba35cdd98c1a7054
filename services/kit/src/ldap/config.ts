import { readFileSync } from "node:fs";
import { z } from "zod";
import { isValidDn, normalizeDn } from "./dn";
import { parseLdapFilter } from "./filter";

/**
 * LDAP servers in GitLab's terms (config/gitlab.yml `ldap.servers`, defaults from
 * config/initializers/1_settings.rb), read from `CANOPY_LDAP_SERVERS`: a JSON object keyed by server
 * id, `{"main": {"host": ..., "base": ..., "uid": ...}}`. Server `main` is provider `ldapmain`.
 *
 * Every problem is reported at once and no problem quotes a value: the text holds a password.
 */

/** What the rest of Canopy uses of one server, defaults applied. */
export interface LdapServer {
  /** The id under which it was configured (`main`). */
  id: string;
  /** `ldap<id>`, lower case: the identities' provider and the path of its sign-in route. */
  provider: string;
  label: string;
  host: string;
  port: number;
  encryption: "plain" | "start_tls" | "simple_tls";
  verifyCertificates: boolean;
  /** The PEM read from `ca_file` at start, when one is configured. */
  ca?: string;
  caFile?: string;
  bindDn?: string;
  password?: string;
  /** Normalized, as GitLab keeps it. */
  base: string;
  uid: string;
  userFilter?: string;
  groupBase?: string;
  attributes: LdapAttributeMap;
  /** Seconds per directory operation. */
  timeout: number;
  lowercaseUsernames: boolean;
  activeDirectory: boolean;
  /** A user made at their first sign-in waits for an administrator's approval (GitLab's setting). */
  blockAutoCreatedUsers: boolean;
}

/** Which directory attributes give a user's fields; for a list, the first present wins. */
export interface LdapAttributeMap {
  username: string[];
  email: string[];
  name: string[];
  firstName: string[];
  lastName: string[];
}

/** GitLab's `default_attributes`. */
export const DEFAULT_LDAP_ATTRIBUTES: LdapAttributeMap = {
  username: ["uid", "sAMAccountName", "userid"],
  email: ["mail", "email", "userPrincipalName"],
  name: ["cn"],
  firstName: ["givenName"],
  lastName: ["sn"],
};

// Keys GitLab knows that Canopy does not act on: accepted so a GitLab configuration can be pasted.
const IGNORED_GITLAB_KEYS = [
  "admin_group",
  "external_groups",
  "sync_ssh_keys",
  "allow_username_or_email_login",
  "smartcard_auth",
  "smartcard_ad_cert_field",
  "smartcard_ad_cert_format",
  "tls_options",
  "retry_empty_result_with_codes",
  "sync_name",
  "provider_name",
  "prevent_ldap_sign_in",
  "enabled",
];

const attributeNames = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]);
const dn = (what: string) =>
  z.string().min(1, `${what} must not be empty`).refine(isValidDn, `${what} is not a valid DN`);

const serverSchema = z
  .object({
    label: z.string().min(1).default("LDAP"),
    host: z.string().min(1, "host is missing"),
    port: z.number().int().min(1).max(65535).optional(),
    encryption: z.enum(["plain", "start_tls", "simple_tls"]).optional(),
    // GitLab's older spelling of `encryption`.
    method: z.enum(["plain", "tls", "ssl", "start_tls", "simple_tls"]).optional(),
    verify_certificates: z.boolean().default(true),
    ca_file: z.string().min(1).optional(),
    bind_dn: dn("bind_dn").optional(),
    password: z.string().optional(),
    base: dn("base"),
    uid: z.string().min(1, "uid must not be empty"),
    user_filter: z
      .string()
      .optional()
      .refine((f) => !f || parseLdapFilter(f) !== undefined, "user_filter is not a valid LDAP filter"),
    group_base: dn("group_base").optional(),
    attributes: z
      .object({
        username: attributeNames.optional(),
        email: attributeNames.optional(),
        name: attributeNames.optional(),
        first_name: attributeNames.optional(),
        last_name: attributeNames.optional(),
      })
      .strict()
      .default({}),
    timeout: z.number().int().min(1).max(3600).default(10),
    lowercase_usernames: z.boolean().default(false),
    active_directory: z.boolean().default(true),
    block_auto_created_users: z.boolean().default(false),
    ...Object.fromEntries(IGNORED_GITLAB_KEYS.map((k) => [k, z.unknown().optional()])),
  })
  .strict();

type ServerInput = z.infer<typeof serverSchema>;

const list = (v: string | string[] | undefined, fallback: string[]) =>
  v === undefined ? fallback : Array.isArray(v) ? v : [v];

const LEGACY_ENCRYPTION = { tls: "start_tls", ssl: "simple_tls" } as const;

function toServer(id: string, s: ServerInput, problems: string[]): LdapServer {
  const legacy = s.method && (LEGACY_ENCRYPTION[s.method as keyof typeof LEGACY_ENCRYPTION] ?? s.method);
  const encryption = s.encryption ?? (legacy as LdapServer["encryption"] | undefined) ?? "plain";
  let ca: string | undefined;
  if (s.ca_file) {
    try {
      ca = readFileSync(s.ca_file, "utf8");
    } catch {
      problems.push(`${id}.ca_file cannot be read`);
    }
  }
  const a = s.attributes;
  return {
    id,
    provider: `ldap${id}`.toLowerCase(),
    label: s.label,
    host: s.host,
    port: s.port ?? (encryption === "simple_tls" ? 636 : 389),
    encryption,
    verifyCertificates: s.verify_certificates,
    ca,
    caFile: s.ca_file,
    bindDn: s.bind_dn,
    password: s.password,
    base: normalizeDn(s.base),
    uid: s.uid,
    userFilter: s.user_filter || undefined,
    groupBase: s.group_base,
    attributes: {
      username: list(a.username, DEFAULT_LDAP_ATTRIBUTES.username),
      email: list(a.email, DEFAULT_LDAP_ATTRIBUTES.email),
      name: list(a.name, DEFAULT_LDAP_ATTRIBUTES.name),
      firstName: list(a.first_name, DEFAULT_LDAP_ATTRIBUTES.firstName),
      lastName: list(a.last_name, DEFAULT_LDAP_ATTRIBUTES.lastName),
    },
    timeout: s.timeout,
    lowercaseUsernames: s.lowercase_usernames,
    activeDirectory: s.active_directory,
    blockAutoCreatedUsers: s.block_auto_created_users,
  };
}

/** A problem in words, naming the key and never the value. */
function describe(id: string, issue: z.core.$ZodIssue): string {
  const where = [id, ...issue.path.map(String)].join(".");
  if (issue.code === "unrecognized_keys") return `${where}: unknown key(s) ${issue.keys.join(", ")}`;
  if (issue.code === "invalid_type" && issue.message.includes("received undefined"))
    return `${where} is missing`;
  return `${where}: ${issue.message}`;
}

export interface ParsedLdapServers {
  servers: LdapServer[];
  problems: string[];
}

/** Parses the `CANOPY_LDAP_SERVERS` text; unset or empty means no LDAP. */
export function parseLdapServers(text: string | undefined): ParsedLdapServers {
  if (!text || !text.trim()) return { servers: [], problems: [] };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    // JSON.parse's message quotes the text around the error, which may be the password.
    const at = /position (\d+)/.exec(String(e))?.[1];
    return { servers: [], problems: [`is not valid JSON${at ? ` (at position ${at})` : ""}`] };
  }
  if (json === null || typeof json !== "object" || Array.isArray(json))
    return { servers: [], problems: ['must be a JSON object keyed by server id, e.g. {"main": {...}}'] };
  const servers: LdapServer[] = [];
  const problems: string[] = [];
  for (const [id, raw] of Object.entries(json)) {
    if (!/^[A-Za-z0-9_]+$/.test(id)) problems.push(`${id}: a server id is letters, digits and _ only`);
    const parsed = serverSchema.safeParse(raw);
    if (!parsed.success) problems.push(...parsed.error.issues.map((issue) => describe(id, issue)));
    else servers.push(toServer(id, parsed.data, problems));
  }
  const providers = servers.map((s) => s.provider);
  for (const p of new Set(providers.filter((p, i) => providers.indexOf(p) !== i)))
    problems.push(`two servers have the provider name ${p} (ids differ only in case)`);
  return { servers, problems };
}

/**
 * `CANOPY_LDAP_SERVERS` as a setting of a service's config schema: each problem becomes one line
 * of the ConfigError the service fails to start with.
 */
export const ldapServersSetting = z
  .string()
  .optional()
  .transform((text, ctx) => {
    const { servers, problems } = parseLdapServers(text);
    for (const message of problems) ctx.addIssue({ code: "custom", message });
    return servers;
  });
