import { keptListCounts } from "@canopy/kit";

/**
 * The kept counts of the group lists (the kit's sql/list-counts.ts, on this schema's tables from
 * migration 0008, whose scope 0 is "the groups": which exist, where, how visible, their names and
 * custom attributes, and the shares between them).
 */
export const { keptCountColumn, keptCount, countAndKeep } = keptListCounts({
  scopeGenerationColumn: "groups_generation",
  service: "groups",
});
