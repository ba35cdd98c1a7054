import type { groups } from "@canopy/protos";

/**
 * GitLab's group statistics (reference §3.3): sums over the projects directly in each group. No
 * project reports sizes yet (the projects service will), so every group has all zeros; the list
 * finders and the single-group answers take them from here, and only this file changes when
 * project sizes arrive. Integers, never null.
 */
export const zeroStatistics = (): groups.GroupStatistics => ({
  storageSize: 0,
  repositorySize: 0,
  wikiSize: 0,
  lfsObjectsSize: 0,
  jobArtifactsSize: 0,
  packagesSize: 0,
  snippetsSize: 0,
  pipelineArtifactsSize: 0,
  uploadsSize: 0,
});

/** Statistics of each group in `groupIds`, by id (all zeros until projects report sizes). */
export const statisticsOf = (groupIds: readonly number[]): Map<number, groups.GroupStatistics> =>
  new Map(groupIds.map((id) => [id, zeroStatistics()]));
