import { notFound } from "@canopy/kit";
import type { groupAvatars } from "@canopy/protos";
import type { Deps } from "../deps";
import { findAvatar } from "../store/avatars";
import { resolveGroup } from "./groups";

/**
 * A group's avatar file for a caller who may read the group (else 404 "Group", as every group
 * lookup). With a file name (the avatar URL's), an avatar of another name is not found: an old URL
 * stops answering once the avatar is replaced.
 */
export async function getAvatar(
  deps: Deps,
  req: groupAvatars.GetAvatarRequest,
): Promise<groupAvatars.Avatar> {
  const { row } = await resolveGroup(deps, req.actor, req.group);
  const avatar = await findAvatar(deps.pool, row.id);
  if (!avatar || (req.filename && req.filename !== avatar.filename)) throw notFound("Avatar");
  return {
    filename: avatar.filename,
    contentType: avatar.content_type,
    content: avatar.content,
    updatedAt: avatar.updated_at,
  };
}
