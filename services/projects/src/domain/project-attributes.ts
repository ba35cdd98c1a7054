import {
  addFieldError,
  type FieldErrors,
  isVisibilityName,
  visibilityLevelOf,
  visibilityNameOf,
} from "@canopy/kit";
import type { projects } from "@canopy/protos";
import { settingsChanges } from "./project-settings";
import {
  descriptionErrors,
  nameErrors,
  pathErrors,
  TAKEN,
  visibilityNotAllowedInGroup,
} from "./project-rules";

/** Topics as GitLab keeps them: trimmed, blanks dropped, duplicates (case-insensitively) once. */
export function cleanTopics(topics: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const t of topics.map((s) => s.trim()).filter(Boolean)) {
    if (seen.has(t.toLowerCase())) continue;
    seen.add(t.toLowerCase());
    out.push(t);
  }
  return out;
}

/** The checked attributes of a create or update; `errors` collects GitLab's model errors. */
export function checkedAttributes(a: projects.ProjectAttributes | undefined) {
  const errors: FieldErrors = {};
  nameErrors(a?.name, errors);
  pathErrors(a?.path, errors);
  descriptionErrors(a?.description, errors);
  const visibility =
    a?.visibility === undefined
      ? undefined
      : isVisibilityName(a.visibility)
        ? visibilityLevelOf(a.visibility)
        : undefined;
  if (a?.visibility !== undefined && visibility === undefined)
    addFieldError(errors, "visibility_level", "is not included in the list");
  const { accessLevels, settings } = settingsChanges(a, errors);
  return {
    errors,
    visibility,
    topics: a?.topics ? cleanTopics(a.topics.topics) : undefined,
    accessLevels,
    settings,
  };
}

/** A project may not be more visible than the group it is in (personal namespaces: no limit). */
export function visibilityErrors(
  level: number,
  namespace: { kind: string; visibility_level: number },
  errors: FieldErrors,
) {
  if (namespace.kind === "group" && level > namespace.visibility_level)
    addFieldError(
      errors,
      "visibility_level",
      visibilityNotAllowedInGroup(visibilityNameOf(level), visibilityNameOf(namespace.visibility_level)),
    );
}

/** Name and path taken by another project of the namespace, or the path by a subgroup. */
export function takenErrors(taken: { path: boolean; name: boolean; subgroup: boolean }, errors: FieldErrors) {
  if (taken.name) addFieldError(errors, "name", TAKEN);
  if (taken.path || taken.subgroup) addFieldError(errors, "path", TAKEN);
}
