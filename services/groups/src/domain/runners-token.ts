import { randomBytes } from "node:crypto";
import type { SealingKeys } from "@canopy/kit";

/** GitLab's prefix of group runner registration tokens (`RunnersTokenPrefixable`). */
export const RUNNERS_TOKEN_PREFIX = "GR1348941";

/** A new token as current GitLab makes them: the prefix and 20 URL-safe random characters. */
export const newRunnersToken = () => RUNNERS_TOKEN_PREFIX + randomBytes(15).toString("base64url");

/** The group's id is authenticated with the token, so a sealed token copied to another row does not open. */
export const runnersTokenContext = (groupId: number | string) => `group:${groupId}:runners_token`;

export const sealRunnersToken = (keys: SealingKeys, groupId: number, token: string) =>
  keys.seal(token, runnersTokenContext(groupId));

export const openRunnersToken = (keys: SealingKeys, groupId: number, sealed: Buffer) =>
  keys.open(sealed, runnersTokenContext(groupId));
