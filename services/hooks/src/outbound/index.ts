export * from "./ports";
export { standinOutbound as createOutbound, standinPayloads as payloads } from "./standin";
