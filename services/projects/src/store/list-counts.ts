import { keptListCounts } from "@canopy/kit";

/**
 * The kept counts of the project lists (the kit's sql/list-counts.ts, on this schema's tables from
 * migration 0005, whose scope 0 is "the projects and their places": which projects exist, where,
 * how visible, archived, named; the namespaces' copies; shares; custom attributes).
 */
export const { keptCountColumn, countAndKeep } = keptListCounts({
  scopeGenerationColumn: "projects_generation",
  service: "projects",
});
