// The client side of the OAuth redirects: a tiny HTTP server on 127.0.0.1 that records every URL it
// is sent to and answers 200 "ok", as a native app's loopback listener would (RFC 8252 §7.3).
import http from "node:http";
import type { AddressInfo } from "node:net";

const CALLBACK_PATH = "/callback";

export class RedirectListener {
  /** Every callback request, oldest first (favicon requests and the like are left out). */
  readonly hits: URL[] = [];
  private waiters: { match: (u: URL) => boolean; resolve: (u: URL) => void }[] = [];

  private constructor(
    private readonly server: http.Server,
    /** `http://127.0.0.1:<port>`. */
    readonly origin: string,
  ) {
    server.on("request", (req, res) => {
      const url = new URL(req.url ?? "/", origin);
      if (url.pathname === CALLBACK_PATH) this.record(url);
      res.writeHead(url.pathname === CALLBACK_PATH ? 200 : 404, { "Content-Type": "text/plain" });
      res.end(url.pathname === CALLBACK_PATH ? "ok" : "not found");
    });
  }

  static async start(): Promise<RedirectListener> {
    const server = http.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    return new RedirectListener(server, `http://127.0.0.1:${port}`);
  }

  /** The redirect URI to register. */
  get redirectUri(): string {
    return `${this.origin}${CALLBACK_PATH}`;
  }

  private record(url: URL) {
    this.hits.push(url);
    for (const w of [...this.waiters]) {
      if (w.match(url)) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve(url);
      }
    }
  }

  /** The callback carrying `state` (already received or still to come); fails after `timeoutMs`. */
  async callbackFor(state: string, timeoutMs = 10_000): Promise<URL> {
    const match = (u: URL) => u.searchParams.get("state") === state;
    const seen = this.hits.find(match);
    if (seen) return seen;
    let timer: NodeJS.Timeout | undefined;
    let waiter: (typeof this.waiters)[number] | undefined;
    try {
      return await Promise.race([
        new Promise<URL>((resolve) => {
          waiter = { match, resolve };
          this.waiters.push(waiter);
        }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no callback with state ${state} within ${timeoutMs} ms`)),
            timeoutMs,
          );
        }),
      ]);
    } finally {
      clearTimeout(timer);
      this.waiters = this.waiters.filter((w) => w !== waiter);
    }
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
