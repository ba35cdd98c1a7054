/**
 * The texts a failed delivery logs as `internal_error_message` (and the test endpoint answers
 * with), worded as GitLab's Ruby HTTP stack words them, so a log read against GitLab's
 * documentation or forum answers says the same thing. Only the shape matters to readers: nothing
 * parses these.
 */

/** Where the failure happened: before the TCP (and TLS) connection was up, or after. */
export interface FailurePlace {
  /** The address (or name, when not pinned) and port the connection was opened to. */
  address: string;
  port: number;
  connected: boolean;
}

const openFailure = (place: FailurePlace, detail: string) =>
  `Failed to open TCP connection to ${place.address}:${place.port} (${detail})`;

// Node's error codes, as Ruby's Errno and SocketError print them.
const SYSTEM_ERRORS: Record<string, (place: FailurePlace) => string> = {
  ECONNREFUSED: (p) => openFailure(p, `Connection refused - connect(2) for "${p.address}" port ${p.port}`),
  EHOSTUNREACH: (p) => openFailure(p, `No route to host - connect(2) for "${p.address}" port ${p.port}`),
  ENETUNREACH: (p) => openFailure(p, `Network is unreachable - connect(2) for "${p.address}" port ${p.port}`),
  ENOTFOUND: (p) => openFailure(p, "getaddrinfo: Name or service not known"),
  EAI_AGAIN: (p) => openFailure(p, "getaddrinfo: Temporary failure in name resolution"),
  ECONNRESET: () => "Connection reset by peer",
  EPIPE: () => "Broken pipe",
  HPE_INVALID_CONSTANT: () => "wrong status line",
  HPE_INVALID_STATUS: () => "wrong status line",
};

/** The message for a request that ran out of time. */
export function timeoutMessage(place: FailurePlace): string {
  return place.connected
    ? "Net::ReadTimeout with #<TCPSocket:(closed)>"
    : openFailure(place, "execution expired");
}

/** The message for an error Node's http/https/tls raised. */
export function networkErrorMessage(error: Error & { code?: string }, place: FailurePlace): string {
  // The peer closed the connection before answering (Ruby's EOFError).
  if (error.message === "socket hang up") return "end of file reached";
  const known = error.code ? SYSTEM_ERRORS[error.code] : undefined;
  if (known) return known(place);
  if (
    error.code === "ERR_TLS_CERT_ALTNAME_INVALID" ||
    /certificate|self[- ]signed|SSL|TLS/i.test(error.message)
  ) {
    return `SSL_connect returned=1 errno=0 peeraddr=${place.address}:${place.port} state=error: certificate verify failed (${error.message})`;
  }
  return error.message;
}

/** A delivery the URL blocker refused (GitLab's connection adapter prefixes the reason). */
export const blockedMessage = (reason: string) => `URL is blocked: ${reason}`;

/** HTTParty's error once its redirect budget is spent. */
export const TOO_MANY_REDIRECTS = "HTTP redirects too deep";

/** The request body over GitLab's 25 MB: nothing is sent. Exact GitLab wording unconfirmed. */
export const requestTooLargeMessage = (limit: number) => `JSON size exceeds the limit of ${limit} bytes`;

/** A response larger than `max_http_response_size_limit`. Exact GitLab wording unconfirmed. */
export const responseTooLargeMessage = (limit: number) => `Response body exceeds the limit of ${limit} bytes`;
