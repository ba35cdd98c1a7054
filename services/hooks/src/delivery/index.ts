/**
 * The outbound webhook delivery runtime: the SSRF guard, the HTTP sender, headers and signatures,
 * the retry policy and the delivery-log row. A delivery worker wires them as: interpolate the URL
 * (`interpolateUrl`), build the headers (`buildDeliveryHeaders`), `sendWebhook`, store
 * `buildLogEntry(...)`, then ask `nextRetry` whether and when to try again.
 */

/** Save-time URL check (`checkHookUrl`, API 422 "Invalid url given") and connect-time plan (`planConnection`). */
export {
  checkHookUrl,
  planConnection,
  parseHookUrl,
  GUARD_REASONS,
  type OutboundRequestSettings,
  type UrlGuardOptions,
  type UrlCheck,
  type ConnectionCheck,
  type ConnectionPlan,
} from "./url-guard";
/** GitLab's reasons for refusing a local address (loopback, private, link-local, ...). */
export { REASONS as LOCAL_ADDRESS_REASONS } from "./address-rules";
/** Name resolution the guard uses, replaceable in tests; `pinnedLookup` pins a connection. */
export {
  systemResolver,
  rememberingResolver,
  pinnedLookup,
  type Resolver,
  type ResolvedAddress,
} from "./resolver";
/** POSTs one delivery (redirects, guard per hop, timeout, size caps); never throws. */
export {
  sendWebhook,
  takeBasicAuth,
  DEFAULT_TIMEOUT_MS,
  REQUEST_BODY_LIMIT_BYTES,
  DEFAULT_MAX_RESPONSE_BYTES,
  MAX_REQUESTS_PER_DELIVERY,
  type SendRequest,
  type SendOutcome,
  type SendFailure,
} from "./send";
/** The built-in headers over the custom ones, and the redacted copy the log keeps. */
export {
  buildDeliveryHeaders,
  TOKEN_HEADER,
  type DeliveryHeaderInput,
  type DeliveryHeaders,
} from "./headers";
/** Standard Webhooks signing (`webhook-id`, `webhook-timestamp`, `webhook-signature`) and secrets. */
export {
  newSigningSecret,
  signWebhook,
  signatureHeaders,
  signingKey,
  type SignatureInput,
} from "./signature";
/** Which failures are retried, and when (exponential backoff with jitter, Retry-After honoured). */
export {
  nextRetry,
  isRetryable,
  backoffDelay,
  parseRetryAfter,
  DEFAULT_RETRY_POLICY,
  type RetryPolicy,
  type RetryDecision,
  type AttemptResult,
} from "./retry";
/** The delivery-log row: status as text, redactions, truncation, URL masking, URL hash. */
export {
  buildLogEntry,
  redactEmails,
  urlHash,
  isSuccessfulStatus,
  INTERNAL_ERROR_STATUS,
  OVERSIZE_REQUEST_DATA,
  LOG_RESPONSE_BODY_LIMIT_BYTES,
  type DeliveryLogEntry,
  type LogEntryInput,
} from "./log-entry";
/** `{name}` placeholders filled from URL variables; URL masking for logs. */
export {
  interpolateUrl,
  urlTemplateKeys,
  maskUrlCredentials,
  maskVariableValues,
  type Interpolation,
} from "./url-template";
/** ActiveSupport's truncate_bytes. */
export { truncateBytes } from "./truncate";
