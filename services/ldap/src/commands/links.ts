import { apiError, conflict, grpcStatus, notFound, planFeatures } from "@canopy/kit";
import { ldap } from "@canopy/protos";
import { blankToNull, linkErrors, takenMessage, type LinkInput } from "../domain/links";
import type { Deps } from "../deps";
import { groupForLinks } from "../finders/groups";
import { toGroupLink } from "../finders/links";
import { deleteLink, insertLink } from "../store/links";

const linkNotFound = () => apiError(404, "Linked LDAP group not found", grpcStatus.NOT_FOUND);

/**
 * A filter without the plan's filter links is GitLab's bare 404 (`not_found!` when the licence
 * `ldap_group_sync_filter` is missing), after the group checks.
 */
function requireFilterLinks(deps: Deps, filter: string | null | undefined) {
  if (filter !== null && filter !== undefined && !planFeatures(deps.config.CANOPY_PLAN).ldapFilterLinks)
    throw notFound();
}

/**
 * POST /groups/:id/ldap_group_links: signed in (401), Owner or administrator (403), a filter only on
 * a plan with filter links (404), then the model (409 with its first full message: invalid,
 * too long, already taken). The provider is not checked against the configured servers.
 */
export async function createGroupLink(deps: Deps, req: ldap.CreateGroupLinkRequest): Promise<ldap.GroupLink> {
  const { group } = await groupForLinks(deps, req.actor, req.group);
  requireFilterLinks(deps, req.filter);
  const input: LinkInput = {
    cn: blankToNull(req.cn),
    filter: blankToNull(req.filter),
    groupAccess: req.groupAccess,
    provider: req.provider,
  };
  const [first] = linkErrors(input);
  if (first) throw conflict(first);
  const row = await insertLink(deps.pool, { groupId: group.id, ...input });
  if (!row) throw conflict(takenMessage(input));
  return toGroupLink(row);
}

/**
 * The three delete routes: `/:cn` deletes the first link with that cn under any provider,
 * `/:provider/:cn` that provider's, and the parameter form a cn or a filter of a provider (a filter
 * needs the plan's filter links: 404). None found: 404 "Linked LDAP group not found".
 */
export async function deleteGroupLink(
  deps: Deps,
  req: ldap.DeleteGroupLinkRequest,
): Promise<ldap.DeleteGroupLinkResponse> {
  const { group } = await groupForLinks(deps, req.actor, req.group);
  let by: { cn?: string; filter?: string; provider?: string };
  switch (req.form) {
    case ldap.DeleteForm.DELETE_FORM_CN_ANY_PROVIDER:
      by = { cn: req.cn ?? "" };
      break;
    case ldap.DeleteForm.DELETE_FORM_CN_AND_PROVIDER:
      by = { cn: req.cn ?? "", provider: req.provider };
      break;
    default:
      requireFilterLinks(deps, req.filter);
      by =
        req.filter !== undefined
          ? { filter: req.filter, provider: req.provider }
          : { cn: req.cn ?? "", provider: req.provider };
  }
  if (!(await deleteLink(deps.pool, group.id, by))) throw linkNotFound();
  return {};
}
