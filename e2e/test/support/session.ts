// One stack for the whole e2e run (the machine is small), shared by every suite through a Session.
import { Secrets } from "./api";
import { startStack, type ExtraGateway, type Stack } from "./stack";

export class Session {
  readonly secrets = new Secrets();
  private started?: Stack;
  private second?: Promise<ExtraGateway>;

  get stack(): Stack {
    if (!this.started) throw new Error("the stack did not start (see the beforeAll failure)");
    return this.started;
  }

  /** Starts the stack; `env` on top of the suite's (a directory for the LDAP suite). */
  async start(env?: Record<string, string>): Promise<void> {
    this.started = await startStack({ env });
    this.secrets.add(this.started.rootToken);
    this.secrets.add(this.started.rootPassword);
  }

  /** A second gateway process next to the launcher's, started on first use and kept for the run. */
  secondGateway(): Promise<ExtraGateway> {
    return (this.second ??= this.stack.startGateway());
  }

  async dispose(): Promise<void> {
    await this.started?.dispose();
  }
}
