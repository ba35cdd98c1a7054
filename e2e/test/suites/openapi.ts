// The OpenAPI document, served and obeyed: every /api/v4 answer the suites before this one saw —
// from curl-like calls, gitbeaker, python-gitlab and the browser — was checked by the gateway
// against the document (CANOPY_OPENAPI_CHECK_FILE, set by the stack), and none may differ from it.
import { readFileSync } from "node:fs";
import { call } from "../support/api";
import type { Session } from "../support/session";

interface Checked {
  method: string;
  path: string;
  status: number;
  operation: string | null;
  problems?: string[];
  body?: string;
}

export function openApi(session: Session) {
  describe("OpenAPI", () => {
    it("GET /api/v4/openapi.json gives anonymous callers the OpenAPI 3.1 document", async () => {
      const reply = await call(session.stack.url, "/api/v4/openapi.json");
      expect(reply.status).toBe(200);
      const document = reply.json as { openapi: string; paths: Record<string, unknown> };
      expect(document.openapi).toBe("3.1.0");
      expect(Object.keys(document.paths).length).toBeGreaterThan(50);
    });

    it("every /api/v4 answer of every suite matched the document", () => {
      const checked = readFileSync(session.stack.openApiCheckFile, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Checked);
      // Not vacuous: the suites made hundreds of calls over dozens of operations.
      expect(checked.length).toBeGreaterThan(200);
      expect(new Set(checked.map((c) => `${c.method} ${c.operation}`)).size).toBeGreaterThan(30);
      const mismatches = checked.filter((c) => c.problems);
      if (mismatches.length)
        throw new Error(
          mismatches
            .map((c) => `${c.method} ${c.path} → ${c.status}: ${c.problems!.join("; ")}\n  ${c.body}`)
            .join("\n"),
        );
    });
  });
}
