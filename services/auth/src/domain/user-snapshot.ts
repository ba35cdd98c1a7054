import type { events } from "@canopy/protos";

/**
 * Whether a write changed anything that consumers of auth's user events keep, and so owes them a
 * UserUpdated. A change they do not keep (password, bio, ...) records no event. Identities are
 * compared by value; the commands that change them record the event themselves.
 */
export function snapshotChanged(before: events.UserSnapshot, after: events.UserSnapshot): boolean {
  return (Object.keys(after) as (keyof events.UserSnapshot)[]).some((field) =>
    field === "identities"
      ? JSON.stringify(before.identities) !== JSON.stringify(after.identities)
      : before[field] !== after[field],
  );
}
