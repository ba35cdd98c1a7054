import { Counter, registry } from "@canopy/kit";
import type { SendOutcome } from "../delivery";
import { HOOK_TRIGGERS } from "../payloads";

/**
 * Delivery metrics, registered on the kit's registry (exposed on the service's /metrics). Labels stay
 * bounded: the trigger is one of GitLab's (anything else is "other"), the result one of a few classes.
 * Never a hook's URL, id or token: hooks are many, and URLs may hold credentials.
 */
const attempts = new Counter({
  name: "canopy_hook_delivery_attempts_total",
  help: "Webhook delivery attempts by the workers, by trigger and result (success, http_4xx, http_5xx, timeout, network, blocked, ...)",
  labelNames: ["trigger", "result"] as const,
  registers: [registry],
});

const givenUp = new Counter({
  name: "canopy_hook_deliveries_failed_total",
  help: "Webhook deliveries that failed for good (their last attempt failed), by trigger",
  labelNames: ["trigger"] as const,
  registers: [registry],
});

const triggerLabel = (trigger: string) => (trigger in HOOK_TRIGGERS ? trigger : "other");

/** `success` for GitLab's success (a final 2xx or 3xx), else the failure's class. */
export function resultOf(outcome: SendOutcome): string {
  if (outcome.kind === "error") return outcome.failure;
  if (outcome.status < 400) return "success";
  return outcome.status < 500 ? "http_4xx" : "http_5xx";
}

export function countAttempt(trigger: string, outcome: SendOutcome): void {
  attempts.inc({ trigger: triggerLabel(trigger), result: resultOf(outcome) });
}

export function countGivenUp(trigger: string): void {
  givenUp.inc({ trigger: triggerLabel(trigger) });
}
