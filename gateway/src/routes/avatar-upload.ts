import type { groups } from "@canopy/protos";
import type { UploadedFile } from "../http/multipart";

/** `avatar` as the groups service takes it: a file, a removal (`avatar=`), or nothing. */
export const avatarUpload = (
  avatar: UploadedFile | null | undefined,
  { removable }: { removable: boolean },
): groups.AvatarUpload | undefined => {
  if (avatar === undefined) return undefined;
  if (avatar === null)
    return removable ? { filename: "", content: Buffer.alloc(0), remove: true } : undefined;
  return { filename: avatar.filename, content: avatar.content, remove: false };
};
