import { z } from "zod";
import { entity } from "./registry";

/**
 * GitLab's error bodies (lib/api/helpers.rb and Grape): `{"message": ...}` from the helpers
 * (`404 Group Not Found`, or a model's field errors), `{"error": ...}` from Grape's parameter checks,
 * the route-not-found handler and the API guard (with `error_description`, and `scope` for
 * insufficient_scope).
 */
export const MessageError = entity(
  "MessageError",
  'A helper\'s error: `{"message": "404 Group Not Found"}`, or field errors by attribute.',
  z.object({ message: z.union([z.string(), z.record(z.string(), z.array(z.string()))]) }),
);

export const CodeError = entity(
  "CodeError",
  'Grape\'s and the API guard\'s error: `{"error": "name is missing"}`, `{"error": "invalid_token", ...}`.',
  z.object({
    error: z.string(),
    error_description: z.string().optional(),
    scope: z.string().optional(),
  }),
);

export const ApiError = entity(
  "ApiError",
  "Any error body the API answers.",
  z.union([MessageError, CodeError]),
);

/** 202's body where GitLab answers `accepted!`. */
export const Accepted = entity(
  "Accepted",
  "The body of a 202 that queued work.",
  z.object({ message: z.literal("202 Accepted") }),
);
