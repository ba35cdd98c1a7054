/**
 * `subgroup_create` and `subgroup_destroy` (lib/gitlab/hook_data/subgroup_builder.rb). They go to
 * the *parent's* hooks and the parent's ancestors' hooks, never to the subgroup's own.
 */
import { xmlschema } from "./dates";
import { built } from "./triggers";
import type { BuiltHookPayload, HookGroup } from "./types";

export type SubgroupEventName = "subgroup_create" | "subgroup_destroy";

export interface SubgroupPayload {
  created_at: string;
  updated_at: string;
  event_name: SubgroupEventName;
  name: string;
  path: string;
  full_path: string;
  group_id: number;
  parent_group_id?: number;
  parent_name?: string;
  parent_path?: string;
  parent_full_path?: string;
}

/** The payload for a subgroup of `parent` (parent keys are absent for a top-level group). */
export function buildSubgroupPayload(
  eventName: SubgroupEventName,
  subgroup: HookGroup,
  parent: HookGroup | null,
): BuiltHookPayload<SubgroupPayload> {
  const payload: SubgroupPayload = {
    created_at: xmlschema(subgroup.createdAt),
    updated_at: xmlschema(subgroup.updatedAt),
    event_name: eventName,
    name: subgroup.name,
    path: subgroup.path,
    full_path: subgroup.fullPath,
    group_id: subgroup.id,
  };
  if (parent) {
    Object.assign(payload, {
      parent_group_id: parent.id,
      parent_name: parent.name,
      parent_path: parent.path,
      parent_full_path: parent.fullPath,
    });
  }
  return built("subgroup_hooks", payload);
}
