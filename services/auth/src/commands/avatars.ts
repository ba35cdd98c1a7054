import {
  apiError,
  avatarContentType,
  avatarErrors,
  avatarFilename,
  notFound,
  unauthenticated,
  withTransaction,
  type FieldErrors,
  type Queryable,
} from "@canopy/kit";
import type { common, userAvatars } from "@canopy/protos";
import type { Deps } from "../deps";
import { userAvatarPath } from "../domain/avatar-url";
import { findUserAvatar, putUserAvatar } from "../store/avatars";
import { lockUserById, type UserRow } from "../store/users";
import { recordUserUpdated } from "./user-events";

/** An accepted avatar, ready to store: its sanitised name and the type its bytes say. */
export interface AvatarFile {
  filename: string;
  contentType: string;
  content: Uint8Array;
}

/**
 * Checks an upload with GitLab's rules (kit's avatar rules, shared with groups): its problems go to
 * `errors.avatar`, in GitLab's order; the file is returned only when it is acceptable.
 */
export function checkedAvatar(
  upload: userAvatars.UserAvatarUpload | undefined,
  errors: FieldErrors,
): AvatarFile | undefined {
  if (!upload) return undefined;
  const problems = avatarErrors(upload.content);
  if (problems.length) {
    errors.avatar = problems;
    return undefined;
  }
  return {
    filename: avatarFilename(upload.filename),
    contentType: avatarContentType(upload.content)!,
    content: upload.content,
  };
}

/** Stores the avatar inside the caller's transaction; the row as it now is (for its event). */
export async function storeAvatar(tx: Queryable, user: UserRow, avatar: AvatarFile): Promise<UserRow> {
  await putUserAvatar(tx, { userId: user.id, ...avatar });
  return { ...user, avatar_filename: avatar.filename };
}

/**
 * PUT /user/avatar: the actor's own avatar. GitLab's Users::UpdateService answers a bad file with
 * the model's full messages joined by ". " (400 {"message":"Avatar is too big (...)"}).
 */
export async function setOwnAvatar(
  deps: Deps,
  actor: common.Actor | undefined,
  req: userAvatars.SetOwnAvatarRequest,
): Promise<userAvatars.SetOwnAvatarResponse> {
  if (!actor?.userId) throw unauthenticated();
  const errors: FieldErrors = {};
  const avatar = checkedAvatar(req.avatar ?? { filename: "", content: Buffer.alloc(0) }, errors);
  if (!avatar) throw apiError(400, (errors.avatar ?? []).map((m) => `Avatar ${m}`).join(". "));
  const row = await withTransaction(deps.pool, async (tx) => {
    const user = await lockUserById(tx, actor.userId);
    if (!user) throw notFound("User");
    const updated = await storeAvatar(tx, user, avatar);
    await recordUserUpdated(tx, updated, actor);
    return updated;
  });
  return { avatarPath: userAvatarPath(row.id, row.avatar_filename) };
}

/**
 * A user's avatar file, for anyone (GitLab serves users' avatars publicly). With a file name, one of
 * another name is not found: a replaced avatar's old URL stops answering.
 */
export async function getUserAvatar(
  deps: Deps,
  req: userAvatars.GetUserAvatarRequest,
): Promise<userAvatars.UserAvatar> {
  const avatar = await findUserAvatar(deps.pool, req.userId);
  if (!avatar || (req.filename && req.filename !== avatar.filename)) throw notFound("Avatar");
  return {
    filename: avatar.filename,
    contentType: avatar.content_type,
    content: avatar.content,
    updatedAt: avatar.updated_at,
  };
}
