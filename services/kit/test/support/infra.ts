/** What the kit's own tests add to the shared harness (`@canopy/kit/testing`). */
import { baseConfigSchema, eventStreamOf, loadConfig } from "@canopy/kit";

export { quietLog, testDatabaseUrl, throwawaySchema, unique, waitFor } from "@canopy/kit/testing";

export const NATS_URL = process.env.CANOPY_NATS_URL ?? "nats://127.0.0.1:4222";
export const REDIS_URL = process.env.CANOPY_REDIS_URL ?? "redis://127.0.0.1:6379";
/** The run's own event stream (jest's global setup names it), as a service of the run would use it. */
export const TEST_STREAM = eventStreamOf(loadConfig(baseConfigSchema));

/** For handlers that stand for slow work; never for waiting on an outcome (use waitFor). */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
