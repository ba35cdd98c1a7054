/**
 * One trace from the HTTP request to the webhook it fires. A subgroup created through the gateway
 * reaches its parent's hook through gRPC, the groups service's outbox, the relay's publish to
 * JetStream, the hooks consumer, a deliveries row and, later, a delivery worker: every span of that
 * path must share the request's trace id, each the child of the one before. Before the relay, the
 * consumer and the worker carried the context on, the chain broke at the outbox (no publish span),
 * at the consumer (no span of its own) and at the worker (which sent in no trace at all).
 */
import { SpanKind } from "@opentelemetry/api";
import {
  hooksKnowGroup,
  newGroup,
  newHook,
  newUser,
  startHooksStack,
  unique,
  waitFor,
  type HooksStack,
} from "./support";
import { idOf, parentOf, recordSpans, traceOf, type ReadableSpan } from "./tracing";

const tracing = recordSpans();
let stack: HooksStack;

beforeAll(async () => {
  stack = await startHooksStack();
});
afterAll(async () => {
  await stack?.stop();
  await tracing.stop();
});

/** The one finished span that `test` picks; fails naming what was there otherwise. */
function one(spans: ReadableSpan[], what: string, test: (s: ReadableSpan) => boolean): ReadableSpan {
  const found = spans.filter(test);
  if (found.length !== 1)
    throw new Error(`${found.length} spans for ${what}; spans: ${spans.map((s) => s.name).join(", ")}`);
  return found[0]!;
}

it("a subgroup created over HTTP and the webhook it fires are one trace, parent by parent", async () => {
  const owner = await newUser(stack);
  const parent = await newGroup(stack, owner);
  const hook = await newHook(stack, parent, owner, { subgroup_events: true, push_events: false });
  await hooksKnowGroup(stack, parent.id);
  tracing.exporter.reset();

  const path = unique("sub-").toLowerCase();
  const res = await stack.gw.post("/api/v4/groups", {
    token: owner.token,
    json: { name: path, path, parent_id: parent.id },
  });
  expect(res.status).toBe(201);
  const hookPath = new URL(hook.url).pathname;
  const [received] = await stack.receiver.waitFor(hookPath, 1);
  expect(received!.json.event_name).toBe("subgroup_create");
  // The send's span ends once the attempt has its answer, a moment after the receiver has the request.
  await waitFor("the webhook's send span", () => tracing.spans().some((s) => s.name === "POST webhook"));

  const spans = tracing.spans();
  const request = one(
    spans,
    "the gateway's request",
    (s) => s.kind === SpanKind.SERVER && s.name === "POST /api/v4/groups",
  );
  const inTrace = spans.filter((s) => traceOf(s) === traceOf(request));
  const isCreate = (s: ReadableSpan) => s.name.endsWith("/CreateGroup");
  const call = one(inTrace, "the gRPC client call", (s) => s.kind === SpanKind.CLIENT && isCreate(s));
  const handled = one(inTrace, "the gRPC server call", (s) => s.kind === SpanKind.SERVER && isCreate(s));
  const published = one(
    inTrace,
    "the relay's publish",
    (s) => s.name === "publish canopy.groups.group.created",
  );
  const consumed = one(
    inTrace,
    "the hooks consumer's handling",
    (s) =>
      s.kind === SpanKind.CONSUMER &&
      s.name === "process canopy.groups.v1.GroupCreated" &&
      s.attributes["messaging.consumer.group.name"] === "hooks-events",
  );
  const sent = one(inTrace, "the webhook's send", (s) => s.name === "POST webhook");

  expect(parentOf(request)).toBeUndefined();
  expect(parentOf(call)).toBe(idOf(request));
  expect(parentOf(handled)).toBe(idOf(call));
  expect(parentOf(published)).toBe(idOf(handled));
  expect(published.kind).toBe(SpanKind.PRODUCER);
  expect(parentOf(consumed)).toBe(idOf(published));
  expect(parentOf(sent)).toBe(idOf(consumed));
  expect(sent.kind).toBe(SpanKind.CLIENT);
  expect(sent.attributes).toMatchObject({
    "canopy.hook.id": hook.id,
    "canopy.hook.trigger": "subgroup_hooks",
    "http.response.status_code": 200,
  });
  expect(request.attributes).toMatchObject({
    "http.route": "/api/v4/groups",
    "http.response.status_code": 201,
  });

  // Nothing secret rides on a span: no token, no hook URL, no signing secret.
  const attributes = JSON.stringify(spans.map((s) => s.attributes));
  for (const secret of [owner.token, hook.url, hook.signing_secret].filter(Boolean))
    expect(attributes).not.toContain(secret);
});
