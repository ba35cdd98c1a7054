import http from "node:http";
import type { AddressInfo } from "node:net";
import {
  connectNats,
  closeRedis,
  connectRedis,
  eventStreamOf,
  payloadOf,
  startBroadcastConsumer,
  type Logger,
} from "@canopy/kit";
import { AUTH_EVENTS, type events } from "@canopy/protos";
import { createApp } from "./app";
import { AuthenticationCache } from "./authn/cache";
import type { GatewayConfig } from "./config";
import { createClients } from "./grpc/clients";
import { AnswerCache } from "./http/answer-cache";
import { RecentWrites } from "./http/recent-writes";
import { UserActivityRecorder } from "./http/user-activity";
import { rateLimits } from "./middleware/rate-limit";

/**
 * The events that may change an answer the answer cache keeps (http/answer-cache.ts). Not the ldap
 * service's: the links a group detail shows change only through API writes, and a sync changes
 * memberships through the groups service, whose member events are under canopy.groups.
 */
const ANSWER_CHANGE_SUBJECTS = ["canopy.groups.>", "canopy.projects.>"];

/** Drops cached authentications when the auth service says a token or user changed. */
async function dropStaleAnswers(cache: AuthenticationCache, event: events.Event) {
  const revoked = payloadOf(event, AUTH_EVENTS.tokenRevoked);
  if (revoked) return cache.dropToken(revoked.kind, revoked.tokenId);
  for (const kind of [
    AUTH_EVENTS.userBlocked,
    AUTH_EVENTS.userUnblocked,
    AUTH_EVENTS.userDeleted,
    AUTH_EVENTS.userUpdated,
  ]) {
    const payload = payloadOf<{ userId: number }>(event, kind);
    if (payload) return cache.dropUser(payload.userId);
  }
}

/** Starts the gateway's HTTP server and its connections; tests start it in-process the same way. */
export async function startGateway(config: GatewayConfig, log: Logger) {
  const clients = createClients(config);
  const { auth: authClient, oauth: oauthClient, settings: settingsClient } = clients;
  const redis = await connectRedis(config.CANOPY_REDIS_URL, log);
  const stream = eventStreamOf(config);
  const nc = await connectNats(config.CANOPY_NATS_URL, log, "canopy-gateway", stream);
  const cache = new AuthenticationCache(
    authClient,
    redis,
    log,
    config.CANOPY_AUTH_CACHE_SECONDS * 1000,
    config.CANOPY_REDIS_KEY_PREFIX,
  );
  const answers = new AnswerCache(redis, log, {
    keyPrefix: config.CANOPY_REDIS_KEY_PREFIX,
    ttlMs: config.CANOPY_ANSWER_CACHE_SECONDS * 1000,
  });
  // Changes made without a request through a gateway that kept answers show: groups' (schedulers, a
  // user deleted in auth) and projects' (cascades, timers, copies of groups and users changed). One
  // consumer per subject: nats-server 2.9 (Debian 12's) filters a consumer on one subject only.
  const answerChanges = await Promise.all(
    ANSWER_CHANGE_SUBJECTS.map((subject) =>
      startBroadcastConsumer({ nc, stream, log, subjects: [subject], handle: () => answers.invalidate() }),
    ),
  );
  const invalidations = await startBroadcastConsumer({
    nc,
    stream,
    log,
    subjects: ["canopy.auth.>"],
    handle: (event) => dropStaleAnswers(cache, event),
  });
  const checks = [
    // Without Redis or NATS the gateway answers, degraded (docs/operating.md): a 503 here would take
    // every gateway out of the load balancer at once.
    { name: "redis", check: () => redis.ping(), degradable: true },
    { name: "nats", check: () => nc.flush(), degradable: true },
    { name: "auth", check: () => authClient.authenticate({ token: "" }, { deadlineMs: 1_500 }) },
  ];
  const app = createApp({
    config,
    log,
    auth: authClient,
    cache,
    checks,
    oauth: oauthClient,
    settings: settingsClient,
    groups: clients.groups,
    projects: clients.projects,
    projectMembers: clients.projectMembers,
    projectSharing: clients.projectSharing,
    projectCustomAttributes: clients.projectCustomAttributes,
    projectEvents: clients.projectEvents,
    groupProjects: clients.groupProjects,
    projectLifecycle: clients.projectLifecycle,
    ldap: clients.ldap,
    groupHooks: clients.groupHooks,
    answers,
    writes: new RecentWrites(redis, log, {
      keyPrefix: config.CANOPY_REDIS_KEY_PREFIX,
      ttlMs: config.CANOPY_READ_YOUR_WRITES_SECONDS * 1000,
    }),
    groupSharing: clients.groupSharing,
    groupCustomAttributes: clients.groupCustomAttributes,
    userCustomAttributes: clients.userCustomAttributes,
    userAvatars: clients.userAvatars,
    userState: clients.userState,
    impersonationTokens: clients.impersonationTokens,
    userStatus: clients.userStatus,
    userActivity: clients.userActivity,
    activity: new UserActivityRecorder(redis, clients.userActivity, log, config.CANOPY_REDIS_KEY_PREFIX),
    pushRules: clients.pushRules,
    groupAvatars: clients.groupAvatars,
    groupLifecycle: clients.groupLifecycle,
    groupMembers: clients.groupMembers,
    namespaces: clients.namespaces,
    redis,
    limits: rateLimits(redis, {
      keyPrefix: config.CANOPY_REDIS_KEY_PREFIX,
      perUser: config.CANOPY_RATE_LIMIT_AUTHENTICATED,
      perIp: config.CANOPY_RATE_LIMIT_UNAUTHENTICATED,
      oauth: config.CANOPY_RATE_LIMIT_OAUTH,
      signIn: config.CANOPY_RATE_LIMIT_SIGN_IN,
    }),
  });
  const server = http.createServer(app.callback());
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(config.CANOPY_PORT, resolve));
  const port = (server.address() as AddressInfo).port;
  log.info({ port }, "gateway listening");
  return {
    port,
    checks,
    cache,
    /** Stop accepting, let in-flight requests finish, then close connections. */
    stop: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await invalidations.stop();
      for (const consumer of answerChanges) await consumer.stop();
      await nc.drain();
      await closeRedis(redis);
      clients.close();
    },
  };
}
