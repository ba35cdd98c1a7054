/**
 * Log redaction. pino's path-based `redact` cannot reach keys at any depth or secrets embedded in
 * strings (a URL with ?private_token=...), so every log record passes through `redactDeep`.
 */
const SENSITIVE_KEY =
  /authorization|private[-_]?token|access[-_]?token|refresh[-_]?token|id[-_]?token|^token$|secret|password|cookie|code[-_]?verifier|api[-_]?key/i;

// Token shapes Canopy issues, and `key=value` pairs for sensitive parameters inside strings.
const SECRET_IN_TEXT = [
  /\b(glpat|gloas|glrt|gloat)-[A-Za-z0-9_\-.]{8,}/g,
  /\b(Bearer|Basic)\s+[A-Za-z0-9_\-.~+/=]{8,}/gi,
  /\b((?:private_token|access_token|refresh_token|client_secret|password|code|code_verifier)=)[^&\s"']+/gi,
];

export const REDACTED = "[REDACTED]";

export function redactText(text: string): string {
  let out = text;
  for (const pattern of SECRET_IN_TEXT) {
    out = out.replace(pattern, (match, prefix: string | undefined) =>
      prefix && prefix.endsWith("=") ? `${prefix}${REDACTED}` : REDACTED,
    );
  }
  return out;
}

export function isSensitiveKey(key: string): boolean {
  return SENSITIVE_KEY.test(key);
}

/** Returns a copy of `value` with sensitive keys and embedded secrets replaced. */
export function redactDeep(value: unknown, depth = 0): unknown {
  if (depth > 8) return "[Truncated]";
  if (typeof value === "string") return redactText(value);
  if (value === null || typeof value !== "object") return value;
  if (value instanceof Error) {
    return {
      type: value.name,
      message: redactText(value.message),
      stack: value.stack && redactText(value.stack),
    };
  }
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, depth + 1));
  if (Buffer.isBuffer(value) || value instanceof Date) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    out[key] =
      isSensitiveKey(key) && v !== undefined && v !== null && v !== "" ? REDACTED : redactDeep(v, depth + 1);
  }
  return out;
}
