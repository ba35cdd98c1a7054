/**
 * Where a user's avatar is served (GitLab's uploader path, `/uploads/-/system/user/avatar/:id/:file`).
 * The file name was sanitised at upload to letters, digits, '.', '_' and '-', so it needs no encoding.
 */
export const userAvatarPath = (userId: number, filename: string | null | undefined): string =>
  filename ? `/uploads/-/system/user/avatar/${userId}/${filename}` : "";

/**
 * The external URL the snapshots' absolute avatar URLs are built on. It is configuration, read once at
 * start (CANOPY_EXTERNAL_URL), and kept here so that the many writers of user events need not carry it.
 */
let externalBase = "http://localhost:8080";

export function setAvatarExternalUrl(url: string): void {
  externalBase = url.replace(/\/+$/, "");
}

/** The avatar's absolute URL, as user events carry it to other services; empty without one. */
export const userAvatarUrl = (userId: number, filename: string | null | undefined): string =>
  filename ? externalBase + userAvatarPath(userId, filename) : "";
