import type { Deps } from "../deps";
import { DirectoryUnavailable } from "../directory/directory";
import type { FirstSignIn } from "../store/first-sign-ins";
import { groupsLinkedToCns } from "../store/links";
import { markPending } from "../store/syncs";

/**
 * A new LDAP user's first sign-in (GitLab's `Gitlab::Auth::Ldap::Access` for a user created minutes
 * ago): the cns of the directory groups listing the user (member, uniqueMember, memberUid under the
 * provider's group_base), then a sync queued for every group with a cn link of that provider naming
 * one of them. Filter links are not considered, as in GitLab. A directory that does not answer is
 * logged and the user waits for the schedule. Returns the groups queued.
 */
export async function syncForFirstSignIn(deps: Deps, signIn: FirstSignIn): Promise<number[]> {
  const server = deps.servers.find((s) => s.provider === signIn.provider);
  if (!server) return [];
  const directory = deps.openDirectory();
  let cns: string[];
  try {
    cns = await directory.groupCnsOfPerson(server, signIn.dn);
  } catch (err) {
    if (!(err instanceof DirectoryUnavailable)) throw err;
    deps.log.warn(
      { err, user_id: signIn.user_id },
      "first sign-in sync skipped: the directory did not answer",
    );
    return [];
  } finally {
    await directory.close();
  }
  const groups = await groupsLinkedToCns(deps.pool, server.provider, cns);
  const queued: number[] = [];
  for (const groupId of groups) if (await markPending(deps.pool, groupId)) queued.push(groupId);
  deps.log.info({ user_id: signIn.user_id, cns, queued }, "first sign-in: ldap syncs queued");
  return queued;
}
