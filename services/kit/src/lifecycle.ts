import type { Logger } from "pino";

type StopStep = { name: string; stop: () => Promise<unknown> | unknown };

/**
 * Graceful shutdown. Steps registered with `onStop` run in reverse order of registration (stop
 * accepting first, close pools last) on SIGTERM/SIGINT or `stop()`; a second signal exits at once.
 */
export class Lifecycle {
  private readonly steps: StopStep[] = [];
  private stopping?: Promise<void>;

  constructor(private readonly log: Logger) {}

  onStop(name: string, stop: StopStep["stop"]): void {
    this.steps.push({ name, stop });
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      for (const step of [...this.steps].reverse()) {
        try {
          await step.stop();
        } catch (err) {
          this.log.warn({ err, step: step.name }, "shutdown step failed");
        }
      }
    })();
    return this.stopping;
  }

  installSignalHandlers(): void {
    const onSignal = (signal: NodeJS.Signals) => {
      if (this.stopping) process.exit(1);
      this.log.info({ signal }, "shutting down");
      void this.stop().then(() => process.exit(0));
    };
    process.on("SIGTERM", onSignal).on("SIGINT", onSignal);
  }
}
