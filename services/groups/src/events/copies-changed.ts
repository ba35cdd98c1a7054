import { recordEvent, type PoolClient } from "@canopy/kit";
import { GROUPS_EVENTS, type events } from "@canopy/protos";

/**
 * Says that another context's event changed who may read a group here (GroupCopiesChanged), in the
 * transaction that applied it: published only once the change is readable. Gateways drop their
 * kept group answers on it; the projects event itself may have reached them before this service
 * applied it, and an answer computed in between would otherwise be kept.
 */
export async function copiesChanged(tx: PoolClient, cause: events.Event): Promise<void> {
  await recordEvent(tx, GROUPS_EVENTS.copiesChanged, { causeType: cause.type });
}
