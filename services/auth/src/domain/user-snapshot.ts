import type { events } from "@canopy/protos";

/**
 * Whether a write changed anything that consumers of auth's user events keep, and so owes them a
 * UserUpdated. A change they do not keep (password, bio, ...) records no event.
 */
export function snapshotChanged(before: events.UserSnapshot, after: events.UserSnapshot): boolean {
  return (Object.keys(after) as (keyof events.UserSnapshot)[]).some(
    (field) => before[field] !== after[field],
  );
}
