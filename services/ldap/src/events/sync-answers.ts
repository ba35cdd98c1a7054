import { payloadOf, type ConsumerDefinition, type PoolClient } from "@canopy/kit";
import { GROUPS_EVENTS, type events } from "@canopy/protos";
import type { Deps } from "../deps";
import { finishSync } from "../store/syncs";

/**
 * The groups service's answers to sync commands (LdapMembersApplied), which finish syncs, on a
 * durable consumer of their own. A sync that adds 5,000 members is answered after its 5,000 member
 * events in the stream; on the copies' consumer (events/groups.ts, one event at a time, in order)
 * the answer waited until this service's copy had taken each of them: 14 of the 18 s a first sync
 * of 5,000 took in bench:ldap. A sync's state does not depend on that copy: the groups service, the
 * one writer of memberships, has applied them when it answers (and a later sync's command is
 * applied there against its own members, whatever this copy holds).
 */
export const syncAnswersConsumer = (deps: Deps): ConsumerDefinition => ({
  name: "ldap-sync-answers",
  subjects: [GROUPS_EVENTS.ldapMembersApplied.subject],
  handle: (event, tx) => applySyncAnswer(deps, event, tx),
});

export async function applySyncAnswer(deps: Deps, event: events.Event, tx: PoolClient): Promise<void> {
  const applied = payloadOf(event, GROUPS_EVENTS.ldapMembersApplied);
  // A stale answer (an older command overtaken by a newer one) finishes nothing.
  if (!applied || applied.stale) return;
  deps.log.info({ ...applied }, "ldap sync applied by the groups service");
  await finishSync(tx, applied.groupId, applied.generation, applied.error);
}
