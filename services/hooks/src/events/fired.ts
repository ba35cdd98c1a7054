import type { events } from "@canopy/protos";
import type { BuiltHookPayload } from "../payloads";

/** An event that names a group before the group's own event was applied (see hook-events.ts). */
export class GroupNotYetKnown extends Error {
  constructor(groupId: number) {
    super(`group ${groupId} is not in the copies yet`);
    this.name = "GroupNotYetKnown";
  }
}

/** What an event fires: a payload (with its trigger) for the hooks of these groups. */
export interface Fired {
  groupIds: number[];
  built: BuiltHookPayload<object>;
}

export const dateOf = (event: events.Event) => event.occurredAt ?? new Date();
