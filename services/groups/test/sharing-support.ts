/**
 * Helpers of the sharing and custom attributes contract tests: the two services' clients, direct
 * memberships (the members API is not this area's: rows are written as it would write them), and
 * the events these areas record, read back from the outbox.
 */
import { filledClient } from "@canopy/kit/testing";
import { events, groupCustomAttributes, groupEvents, groupSharing } from "@canopy/protos";
import type { Harness } from "./support";
import { insertMembership } from "./memberships";

/** The requests of the sharing API these tests call (the projects service's tests too). */
export const SHARING_REQUESTS = {
  shareGroup: groupSharing.ShareGroupRequest,
  unshareGroup: groupSharing.UnshareGroupRequest,
};

export const sharingRpc = (h: Harness) =>
  filledClient(h.groupsService.client(groupSharing.GroupSharingServiceService), SHARING_REQUESTS);

export const customAttributesRpc = (h: Harness) =>
  filledClient(h.groupsService.client(groupCustomAttributes.GroupCustomAttributesServiceService), {
    listCustomAttributes: groupCustomAttributes.ListCustomAttributesRequest,
    getCustomAttribute: groupCustomAttributes.GetCustomAttributeRequest,
    setCustomAttribute: groupCustomAttributes.SetCustomAttributeRequest,
    deleteCustomAttribute: groupCustomAttributes.DeleteCustomAttributeRequest,
  });

/** A direct membership, as the members API stores it. */
export const addMember = (
  h: Harness,
  groupId: number,
  userId: number,
  accessLevel: number,
  expiresAt: string | null = null,
) => insertMembership(h.db, { groupId, userId, accessLevel, expiresAt });

export { utcDate } from "@canopy/kit/testing";

/** The payloads of the outbox's events on `subject`, decoded with `codec`, oldest first. */
export async function recordedEvents<T>(
  h: Harness,
  subject: string,
  codec: { decode(b: Uint8Array): T },
): Promise<T[]> {
  const { rows } = await h.db.query<{ envelope: Buffer }>(
    "SELECT envelope FROM outbox WHERE subject = $1 ORDER BY seq",
    [subject],
  );
  return rows.map((r) => codec.decode(events.Event.decode(r.envelope).payload));
}

export { groupEvents };
