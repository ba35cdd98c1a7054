/** GitLab's timestamps: ISO 8601, UTC, milliseconds; null when absent. */
export const iso = (d: Date | undefined) => (d ? d.toISOString() : null);
/** Empty strings in the contract mean "not set"; GitLab shows those as null. */
export const orNull = (s: string) => (s === "" ? null : s);
