import { imageSize } from "image-size";

/** GitLab's avatar limit (`Avatarable::MAXIMUM_FILE_SIZE`, 200.kilobytes). */
export const MAX_AVATAR_BYTES = 200 * 1024;

/** The image types an avatar may be, by what its bytes say, with the type it is served as. */
const CONTENT_TYPES: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  gif: "image/gif",
  bmp: "image/bmp",
  tiff: "image/tiff",
  ico: "image/vnd.microsoft.icon",
};

export const UNSUPPORTED_AVATAR =
  "file format is not supported. Please try one of the following supported formats: image/png, image/jpeg, image/gif, image/bmp, image/tiff, image/vnd.microsoft.icon";
export const AVATAR_TOO_BIG = "is too big (should be at most 200 KB)";

/**
 * The content type of an avatar, decided by parsing its bytes (never by its name or the type the
 * client claimed), or undefined when they are not one of the allowed images. An SVG, HTML or
 * anything else is refused, so nothing served from the avatar URL can run script.
 */
export function avatarContentType(content: Uint8Array): string | undefined {
  try {
    return CONTENT_TYPES[imageSize(content).type ?? ""];
  } catch {
    return undefined;
  }
}

/** GitLab's messages for an avatar, in its order (type, then size); empty when it is acceptable. */
export function avatarErrors(content: Uint8Array): string[] {
  const errors: string[] = [];
  if (!avatarContentType(content)) errors.push(UNSUPPORTED_AVATAR);
  if (content.length > MAX_AVATAR_BYTES) errors.push(AVATAR_TOO_BIG);
  return errors;
}

/**
 * The file name kept and shown in avatar_url: its last path segment with anything but letters,
 * digits, '.', '_' and '-' replaced by '_' (CarrierWave's sanitising), at most 100 characters.
 */
export function avatarFilename(sent: string): string {
  const base = sent.split(/[/\\]/).pop() ?? "";
  const clean = base
    .replace(/[^A-Za-z0-9._-]/g, "_")
    .replace(/^\.+/, "")
    .slice(-100);
  return clean || "avatar";
}
