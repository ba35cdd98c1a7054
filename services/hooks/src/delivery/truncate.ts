/** Byte-bounded text, as GitLab bounds what it logs of an answer. */

/** ActiveSupport's String#truncate_bytes: at most `limit` bytes, ending in "…" when cut. */
export function truncateBytes(text: string, limit: number): string {
  if (Buffer.byteLength(text, "utf8") <= limit) return text;
  const omission = "…";
  let budget = limit - Buffer.byteLength(omission, "utf8");
  let out = "";
  for (const char of text) {
    const size = Buffer.byteLength(char, "utf8");
    if (size > budget) break;
    out += char;
    budget -= size;
  }
  return out + omission;
}
