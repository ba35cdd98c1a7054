/**
 * The two date shapes GitLab's hook payloads use. Canopy's clock is UTC, as GitLab's Time.zone is
 * on a default instance.
 */

/** Ruby's Time#xmlschema in UTC: "2020-12-11T04:57:22Z" (no milliseconds). */
export function xmlschema(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** ActiveSupport's Date#xmlschema: the day's midnight in UTC, "2020-12-14T00:00:00Z". */
export function dayXmlschema(day: string): string {
  return `${day.slice(0, 10)}T00:00:00Z`;
}

/** Ruby's Time#to_s in UTC, as hook_attrs print timestamps: "2015-05-17 18:08:09 UTC". */
export function rubyUtc(date: Date): string {
  return date
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d{3}Z$/, " UTC");
}
