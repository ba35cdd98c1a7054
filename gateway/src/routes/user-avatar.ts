import type { userAvatars } from "@canopy/protos";
import { Avatar } from "../entities/schemas";
import { userAvatarUrl } from "../entities/user";
import { endpoint, type Call } from "../http/endpoint";
import { HttpError } from "../http/errors";
import { sendJson } from "../http/json";
import type { UploadedFile } from "../http/multipart";
import { param } from "../http/params";
import { READ_USER } from "../http/scopes";

/**
 * Users' avatars through the API (GitLab lib/api/users.rb). The file's checks (type by its bytes,
 * 200 KB) are the kit's avatar rules, applied by the auth service, which keeps the file; it is
 * served at /uploads/-/system/user/avatar/:id/:filename (web/routes/user-avatars.ts).
 */

/**
 * `avatar` of POST and PUT /users as the auth service takes it. GitLab types it WorkhorseFile, which
 * an empty value does not coerce to: unlike a group's, a user's avatar is not removed by `avatar=`.
 */
export function avatarFile(
  avatar: UploadedFile | null | undefined,
): userAvatars.UserAvatarUpload | undefined {
  if (avatar === undefined) return undefined;
  if (avatar === null) throw new HttpError(400, { error: "avatar is invalid" });
  return { filename: avatar.filename, content: avatar.content };
}

const setOwnAvatarParams = { avatar: param.file() };

/**
 * PUT /user/avatar (GitLab 17.0): the current user's own avatar; 200 {"avatar_url": ...}. A bad file
 * is 400 {"message":"Avatar <problem>"} (Users::UpdateService's joined full messages).
 */
async function setOwnAvatar({ params, actor, ctx, deps }: Call<typeof setOwnAvatarParams>) {
  const res = await deps.userAvatars.setOwnAvatar({ actor, avatar: avatarFile(params.avatar) });
  // GET /user renders the cached user: drop it now, not when the event arrives.
  await deps.cache.dropUser(actor.userId);
  sendJson(ctx, 200, { avatar_url: userAvatarUrl(res, deps.config.CANOPY_EXTERNAL_URL) });
}

export const userAvatarEndpoints = [
  endpoint({
    method: "PUT",
    path: "/user/avatar",
    access: "user",
    scopes: READ_USER,
    params: setOwnAvatarParams,
    handler: setOwnAvatar,
    responses: { 200: Avatar },
  }),
];
