import { recordEvent, type PoolClient } from "@canopy/kit";
import { PROJECTS_EVENTS, type events } from "@canopy/protos";

/**
 * Says that another context's event changed this service's copies (ProjectCopiesChanged), in the
 * transaction that applied it: published only once the change is readable here. Gateways drop
 * their kept project answers on it; the groups or auth event itself may have reached them before
 * this service applied it, and an answer computed in between would otherwise be kept.
 */
export async function copiesChanged(tx: PoolClient, cause: events.Event): Promise<void> {
  await recordEvent(tx, PROJECTS_EVENTS.copiesChanged, { causeType: cause.type });
}
