import { Attribute, Change, Client } from "ldapts";
import {
  SLAPD_ADMIN_DN,
  SLAPD_PEOPLE_BASE,
  groupDn,
  memberAttributeOf,
  type SlapdGroupKind,
} from "./slapd-seed";

// The harness's writes to a running slapd (slapd.ts), as its own administrator account.

/** A client bound as the harness's administrator. */
export async function adminClient(url: string, password: string): Promise<Client> {
  const client = new Client({ url, timeout: 10_000, connectTimeout: 5_000 });
  await client.bind(SLAPD_ADMIN_DN, password);
  return client;
}

export async function withAdmin<T>(
  open: () => Promise<Client>,
  work: (client: Client) => Promise<T>,
): Promise<T> {
  const client = await open();
  try {
    return await work(client);
  } finally {
    await client.unbind().catch(() => undefined);
  }
}

export async function ensureUnit(client: Client, ou: string) {
  const dn = `ou=${ou},${SLAPD_PEOPLE_BASE}`;
  const { searchEntries } = await client
    .search(dn, { scope: "base", attributes: ["ou"] })
    .catch(() => ({ searchEntries: [] }));
  if (!searchEntries.length) await client.add(dn, { objectClass: ["top", "organizationalUnit"], ou });
}

export async function changeMember(
  open: () => Promise<Client>,
  cn: string,
  member: string,
  operation: "add" | "delete",
) {
  await withAdmin(open, async (client) => {
    const dn = groupDn(cn);
    const { searchEntries } = await client.search(dn, { scope: "base", attributes: ["objectClass"] });
    const classes = [searchEntries[0]?.objectClass ?? []].flat().map(String);
    const kind = (["groupOfNames", "groupOfUniqueNames", "posixGroup", "group"] as const).find((k) =>
      classes.some((c) => c.toLowerCase() === k.toLowerCase()),
    );
    if (!kind) throw new Error(`${dn} is not a group the harness knows`);
    const type = memberAttributeOf(kind satisfies SlapdGroupKind);
    await client.modify(
      dn,
      new Change({ operation, modification: new Attribute({ type, values: [member] }) }),
    );
  });
}
