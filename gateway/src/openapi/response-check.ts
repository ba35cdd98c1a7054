import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import type { OpenApiDocument } from "./document";

/**
 * Checks an answer against the OpenAPI document: the operation its method and path name, the
 * response its status names (or `default` for an error), and the body against that response's
 * schema (ajv, JSON Schema 2020-12 as OpenAPI 3.1 writes it). Used by the opt-in gateway check
 * (check-responses.ts) that the e2e suites turn on, and by the gateway's own tests.
 */

export interface Answer {
  method: string;
  /** The path under /api/v4, as sent (still URL-encoded). */
  path: string;
  status: number;
  /** The body's text; empty for none. */
  body: string;
}

/** What did not match, for a test's failure message; undefined when the answer matched. */
export type Mismatch = { operation: string; problems: string[] } | undefined;

const DOCUMENT_ID = "https://canopy.invalid/api/v4/openapi.json";

/** A JSON pointer into the document as a URI fragment (`{` and `}` percent-encoded). */
const pointer = (...segments: string[]) =>
  segments.map((s) => `/${encodeURIComponent(s.replace(/~/g, "~0").replace(/\//g, "~1"))}`).join("");

interface Template {
  path: string;
  pattern: RegExp;
  /** Literal paths (`/personal_access_tokens/self`) win over `{id}` ones, as the router has them. */
  params: number;
}

export class ResponseChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly templates: Template[];

  constructor(private readonly document: OpenApiDocument) {
    addFormats(this.ajv);
    this.ajv.addSchema(document as object, DOCUMENT_ID);
    this.templates = Object.keys(document.paths)
      .map((path) => ({
        path,
        pattern: new RegExp(`^${path.replace(/\{[a-z_]+\}/g, "[^/]+")}$`),
        params: (path.match(/\{/g) ?? []).length,
      }))
      .sort((a, b) => a.params - b.params);
  }

  /** The documented path an actual one matches (`/groups/42` is `/groups/{id}`), for `method`. */
  operationPath(method: string, path: string): string | undefined {
    const m = method.toLowerCase();
    return this.templates.find((t) => t.pattern.test(path) && this.document.paths[t.path]![m])?.path;
  }

  check(answer: Answer): Mismatch {
    const method = answer.method.toLowerCase();
    const path = this.operationPath(method, answer.path);
    const label = `${answer.method} ${path ?? answer.path}`;
    if (!path) {
      // The router's own 404 for a path no endpoint has: GitLab's `{"error": "404 Not Found"}`.
      return answer.status === 404 || answer.status === 405
        ? this.checkBody(label, "#/components/schemas/ApiError", answer.body)
        : { operation: label, problems: [`no operation for ${answer.method} ${answer.path}`] };
    }
    const responses = this.document.paths[path]![method]!.responses as Record<string, { content?: object }>;
    const key =
      String(answer.status) in responses ? String(answer.status) : answer.status >= 400 ? "default" : "";
    const response = responses[key];
    if (!response) return { operation: label, problems: [`status ${answer.status} is not documented`] };
    const content = response.content as Record<string, unknown> | undefined;
    if (!content)
      return answer.body === ""
        ? undefined
        : { operation: label, problems: ["a body where none is documented"] };
    if (!("application/json" in content)) return undefined;
    return this.checkBody(
      label,
      `#${pointer("paths", path, method, "responses", key, "content", "application/json", "schema")}`,
      answer.body,
    );
  }

  /** Checks a value against a named component (`#/components/schemas/<name>`). */
  checkEntity(name: string, value: unknown): Mismatch {
    return this.checkValue(name, `#${pointer("components", "schemas", name)}`, value);
  }

  private checkBody(operation: string, fragment: string, body: string): Mismatch {
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return { operation, problems: ["the body is not JSON"] };
    }
    return this.checkValue(operation, fragment, value);
  }

  private checkValue(operation: string, fragment: string, value: unknown): Mismatch {
    let validate = this.validators.get(fragment);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${DOCUMENT_ID}${fragment}` });
      this.validators.set(fragment, validate);
    }
    if (validate(value)) return undefined;
    const problems = (validate.errors ?? []).map(
      (e) => `${e.instancePath || "/"} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`,
    );
    return { operation, problems };
  }
}
