import path from "node:path";
import {
  connectNats,
  createPool,
  migrate,
  OutboxRelay,
  readMigrations,
  serve,
  startGrpcServer,
  type Logger,
} from "@canopy/kit";
import { auth, oauth } from "@canopy/protos";
import { bootstrap } from "./bootstrap";
import type { AuthConfig } from "./config";
import type { Deps } from "./deps";
import { rotateSigningKeys } from "./commands/oauth/keys";
import { authService } from "./rpc/auth-service";
import { oauthService } from "./rpc/oauth-service";
import { tokenHashKey } from "./secrets";

export const SCHEMA = "auth";
const MIGRATIONS_DIR = path.join(__dirname, "..", "migrations");

/**
 * Starts the auth service: migrations, bootstrap, outbox relay, gRPC. Returns what main.ts needs for
 * health checks and shutdown; tests use it to run a real server in-process.
 */
export async function startAuthService(config: AuthConfig, log: Logger) {
  const pool = createPool({ url: config.CANOPY_DATABASE_URL, schema: SCHEMA });
  const applied = await migrate(pool, SCHEMA, await readMigrations(MIGRATIONS_DIR));
  if (applied.length) log.info({ applied }, "migrations applied");
  const nc = await connectNats(config.CANOPY_NATS_URL, log, "canopy-auth");
  const relay = new OutboxRelay(pool, nc, log);
  await relay.start();
  const deps: Deps = {
    pool,
    log,
    tokenKey: await tokenHashKey(pool, config.CANOPY_SECRET_KEY),
    config,
  };
  await bootstrap(deps, { rootPassword: config.CANOPY_ROOT_PASSWORD, rootToken: config.CANOPY_ROOT_TOKEN });
  await rotateSigningKeys(deps);
  // Checked often, acted on when the current key has reached its rotation age.
  const rotation = setInterval(
    () => rotateSigningKeys(deps).catch((err) => log.warn({ err }, "signing key rotation failed")),
    6 * 3600_000,
  ).unref();
  const grpc = await startGrpcServer({
    services: [
      serve(auth.AuthServiceService, authService(deps)),
      serve(oauth.OAuthServiceService, oauthService(deps)),
    ],
    port: config.CANOPY_AUTH_GRPC_PORT,
    log,
  });
  log.info({ port: grpc.port }, "auth gRPC listening");
  return {
    deps,
    grpc,
    nc,
    pool,
    /** Stop accepting, finish in-flight calls, publish what is left, close connections. */
    stop: async () => {
      clearInterval(rotation);
      await grpc.shutdown();
      await relay.stop();
      await nc.drain();
      await pool.end();
    },
  };
}
