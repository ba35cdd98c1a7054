// The LDAP suites' directory: people (password `<uid>-password`) and groups in a throwaway slapd.
import { defaultPassword, personDn, type Slapd } from "@canopy/kit/testing";
import { unique } from "./api";

export interface DirectoryTeam {
  cn: string;
  groupDn: string;
  people: { uid: string; password: string; dn: string }[];
}

/** New directory people and a groupOfNames holding them. */
export async function directoryTeam(slapd: Slapd, prefix: string, size: number): Promise<DirectoryTeam> {
  const uids = Array.from({ length: size }, () => unique(prefix));
  await slapd.addPeople(uids.map((uid) => ({ uid })));
  const cn = unique(`${prefix}team`);
  const groupDn = await slapd.addGroup({
    cn,
    kind: "groupOfNames",
    members: uids.map((uid) => personDn(uid)),
  });
  return {
    cn,
    groupDn,
    people: uids.map((uid) => ({ uid, password: defaultPassword(uid), dn: personDn(uid) })),
  };
}

/** The password grant: a person's first sign-in makes their user; the access token. */
export async function passwordGrant(baseUrl: string, username: string, password: string): Promise<string> {
  const res = await fetch(`${baseUrl}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "password", username, password }),
  });
  if (res.status !== 200) throw new Error(`the password grant answered ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}
