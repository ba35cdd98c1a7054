import { z } from "zod";

/**
 * Which JetStream stream a deployment's events live in. Every deployment (one database) needs its
 * own: a durable consumer reads the whole stream, and events of another database (another test run,
 * another stack on the same NATS) would reach its handlers with ids that mean something else there.
 *
 * Catalogs, consumers and outbox rows name *logical* subjects (`canopy.auth.user.created`); only
 * here does the first token become the stream's (`CANOPY_TEST_AB12` holds `canopy_test_ab12.>`), so
 * the default stream `CANOPY` keeps exactly the subjects it always had.
 */
export interface EventStream {
  /** The JetStream stream's name, e.g. `CANOPY`. */
  readonly name: string;
  /** The subjects the stream is created with: everything under its root token. */
  readonly subjects: string[];
  /** Where a logical subject (`canopy.…`, wildcards allowed) lives in this stream. */
  readonly subject: (logical: string) => string;
}

export const DEFAULT_EVENT_STREAM = "CANOPY";
const LOGICAL_ROOT = "canopy";
const NAME = /^[A-Za-z0-9_-]+$/;
const NAME_RULE = "letters, digits, '_' or '-' (it also names the stream's subjects, lower-cased)";
/** PostgreSQL's longest database name: a deployment can name its stream after its database. */
const MAX_NAME = 63;

/** The `CANOPY_EVENT_STREAM` setting of the base configuration. */
export const eventStreamSetting = z
  .string()
  .regex(NAME, NAME_RULE)
  .max(MAX_NAME)
  .default(DEFAULT_EVENT_STREAM);

export function eventStream(name: string = DEFAULT_EVENT_STREAM): EventStream {
  if (!NAME.test(name) || name.length > MAX_NAME) {
    throw new Error(`event stream name ${JSON.stringify(name)}: ${NAME_RULE}, at most ${MAX_NAME}`);
  }
  const root = name.toLowerCase();
  return {
    name,
    subjects: [`${root}.>`],
    subject: (logical) => {
      if (!logical.startsWith(`${LOGICAL_ROOT}.`)) {
        throw new Error(`event subject ${JSON.stringify(logical)} does not start with "${LOGICAL_ROOT}."`);
      }
      return root + logical.slice(LOGICAL_ROOT.length);
    },
  };
}

/** The stream a process's configuration names. */
export const eventStreamOf = (config: { CANOPY_EVENT_STREAM: string }) =>
  eventStream(config.CANOPY_EVENT_STREAM);
