/** The UTC date `days` from today, as "YYYY-MM-DD" (an expiry date, a mark for deletion). */
export const utcDate = (days = 0) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
