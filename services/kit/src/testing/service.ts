import type { ServiceDefinition as GrpcDefinition } from "@grpc/grpc-js";
import type { BaseConfig } from "../config";
import { loadCallSigner } from "../gateway-keys";
import { createClient, type ClientOptions, type PromiseClient } from "../grpc/client";
import type { ServiceDefinition } from "../service/definition";
import { runService, type RunningService } from "../service/run-service";
import { quietLog } from "./logs";

export interface TestServiceOptions {
  /** Environment on top of `process.env` (the run's database, NATS, Redis). */
  env?: NodeJS.ProcessEnv;
  /** Where the service logs; nothing by default. */
  log?: import("../logger").Logger;
}

export interface TestService<C extends BaseConfig, D> extends RunningService<C, D> {
  /** `127.0.0.1:<port>` of its gRPC server. */
  address: string;
  /**
   * A real gRPC client to it, signing its calls as the gateway does (with the key the service's
   * config names) unless `options.signer` says otherwise; closed when the service stops.
   */
  client<S extends GrpcDefinition>(
    definition: S,
    options?: Partial<Omit<ClientOptions<S>, "address">>,
  ): PromiseClient<S>;
}

/**
 * Starts a service in this process exactly as its `main.ts` does (the same `runService`, so tests
 * exercise the real wiring), with gRPC and health on free ports.
 */
export async function startTestService<C extends BaseConfig, D>(
  definition: ServiceDefinition<C, D>,
  options: TestServiceOptions = {},
): Promise<TestService<C, D>> {
  const running = await runService(definition, {
    env: { ...process.env, CANOPY_HEALTH_PORT: "0", ...options.env },
    log: options.log ?? quietLog,
    grpcPort: 0,
  });
  const address = `127.0.0.1:${running.grpcPort}`;
  const signer = loadCallSigner(running.config);
  const clients: { close(): void }[] = [];
  return {
    ...running,
    address,
    client: (definition, clientOptions = {}) => {
      const client = createClient(definition, { idempotent: [], signer, ...clientOptions, address });
      clients.push(client);
      return client;
    },
    stop: async () => {
      for (const client of clients.splice(0)) client.close();
      await running.stop();
    },
  };
}
