import { common } from "@canopy/protos";

export const ANONYMOUS: common.Actor = {
  userId: 0,
  username: "",
  admin: false,
  external: false,
  scopes: [],
  tokenKind: common.TokenKind.TOKEN_KIND_UNSPECIFIED,
  tokenId: 0,
  impersonatorId: 0,
};
