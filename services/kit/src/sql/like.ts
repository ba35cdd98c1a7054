/** Escapes LIKE's wildcards (`%`, `_`) and its escape character, so user input matches literally. */
export const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** A LIKE/ILIKE pattern matching `s` anywhere, literally. */
export const containsPattern = (s: string) => `%${escapeLike(s)}%`;
