import { randomBytes } from "node:crypto";
import { open, seal } from "@canopy/kit";

/** GitLab's prefix of group runner registration tokens (`RunnersTokenPrefixable`). */
export const RUNNERS_TOKEN_PREFIX = "GR1348941";

/** A new token as current GitLab makes them: the prefix and 20 URL-safe random characters. */
export const newRunnersToken = () => RUNNERS_TOKEN_PREFIX + randomBytes(15).toString("base64url");

/** The group's id is authenticated with the token, so a sealed token copied to another row does not open. */
const contextOf = (groupId: number) => `group:${groupId}:runners_token`;

export const sealRunnersToken = (key: Buffer, groupId: number, token: string) =>
  seal(key, token, contextOf(groupId));

export const openRunnersToken = (key: Buffer, groupId: number, sealed: Buffer) =>
  open(key, sealed, contextOf(groupId));
