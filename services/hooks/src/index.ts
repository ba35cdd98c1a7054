/** The hooks service's delivery runtime and payload builders (the service itself is wired elsewhere). */
export * from "./delivery";
export * from "./payloads";
