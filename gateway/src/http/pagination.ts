import type { Context } from "koa";
import type { common } from "@canopy/protos";
import { param } from "./params";

/**
 * GitLab's pagination headers, both kinds (lib/gitlab/pagination/):
 * - offset (`page`, `per_page`): X-Total, X-Total-Pages, X-Per-Page, X-Page, X-Next-Page,
 *   X-Prev-Page and Link with prev/next/first/last. When the count was capped, X-Total,
 *   X-Total-Pages and rel="last" are left out (offset_header_builder.rb).
 * - keyset (`pagination=keyset`): only `Link: <...>; rel="next"` when there is a next page, its
 *   URL the request's own with the cursor replaced: `cursor=<opaque>` (cursor_based_keyset.rb)
 *   or an `id_after=42`-style value. No totals, no page numbers.
 * Link URLs use the public base URL, with every query parameter of the request, keys sorted.
 */
export type PageResult =
  | { offset: common.PageInfo; itemsOnPage: number }
  | {
      keyset: {
        perPage: number;
        /** Query parameters that fetch the next page (`{cursor}` or `{id_after}`); none on the last. */
        next?: Record<string, string>;
      };
    };

/** The part of a request that the links repeat. */
export interface PagedRequest {
  path: string;
  query: Record<string, string | string[] | undefined>;
}

function linkTo(request: PagedRequest, externalUrl: string, set: Record<string, string>) {
  // Tokens given as parameters are not repeated into a header that proxies and clients may log.
  const { private_token: _p, access_token: _a, ...requestQuery } = request.query;
  const params: Record<string, unknown> = { ...requestQuery, ...set };
  const query = Object.keys(params)
    .sort()
    .flatMap((k) =>
      [params[k]]
        .flat()
        .filter((v) => v !== undefined)
        .map((v) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`),
    )
    .join("&");
  return `<${externalUrl.replace(/\/+$/, "")}${request.path}?${query}>`;
}

function offsetHeaders(request: PagedRequest, externalUrl: string, info: common.PageInfo, items: number) {
  const { page, perPage } = info;
  const totalPages = info.totalCapped ? undefined : Math.max(Math.ceil(info.total / perPage), 1);
  const hasNext = totalPages === undefined ? items === perPage : page < totalPages;
  const link = (p: number) => linkTo(request, externalUrl, { page: String(p), per_page: String(perPage) });
  const links = [
    page > 1 ? `${link(page - 1)}; rel="prev"` : undefined,
    hasNext ? `${link(page + 1)}; rel="next"` : undefined,
    `${link(1)}; rel="first"`,
    totalPages !== undefined ? `${link(totalPages)}; rel="last"` : undefined,
  ];
  return {
    "X-Per-Page": String(perPage),
    "X-Page": String(page),
    "X-Next-Page": hasNext ? String(page + 1) : "",
    "X-Prev-Page": page > 1 ? String(page - 1) : "",
    Link: links.filter(Boolean).join(", "),
    ...(totalPages !== undefined
      ? { "X-Total": String(info.total), "X-Total-Pages": String(totalPages) }
      : {}),
  };
}

/** The headers for one page of a list; pure, so both kinds are unit-tested without a server. */
export function paginationHeaders(
  request: PagedRequest,
  externalUrl: string,
  result: PageResult,
): Record<string, string> {
  if ("offset" in result) return offsetHeaders(request, externalUrl, result.offset, result.itemsOnPage);
  const { perPage, next } = result.keyset;
  if (!next) return {};
  return { Link: `${linkTo(request, externalUrl, { ...next, per_page: String(perPage) })}; rel="next"` };
}

/** Sets the pagination headers of a list answer. */
export function paginate(ctx: Context, externalUrl: string, result: PageResult): void {
  ctx.set(paginationHeaders({ path: ctx.path, query: ctx.query }, externalUrl, result));
}

/** Declared on every list route; the service applies GitLab's rules (page < 1 is 1, at most 100). */
export const paginationParams = { page: param.int32().optional(), per_page: param.int32().optional() };

/** Declared on lists that also page by keyset (`pagination=keyset&cursor=...`). */
export const keysetPaginationParams = {
  ...paginationParams,
  pagination: param.oneOf(["offset", "keyset"]).optional(),
  cursor: param.string(2_000).optional(),
};

/** The page a list asks for, by offset or, with `pagination=keyset`, by its cursor. */
export const keysetPageRequest = (
  p: { page?: number; per_page?: number; cursor?: string },
  keyset: boolean,
): common.PageRequest => ({
  page: p.page ?? 1,
  perPage: p.per_page ?? 20,
  keyset,
  cursor: keyset ? (p.cursor ?? "") : "",
});

/** The headers of a page a service answered: offset's, or keyset's link to the next cursor. */
export function paginateAnswer(
  ctx: Context,
  externalUrl: string,
  page: common.PageInfo,
  itemsOnPage: number,
  keyset: boolean,
): void {
  paginate(
    ctx,
    externalUrl,
    keyset
      ? { keyset: { perPage: page.perPage, next: page.nextCursor ? { cursor: page.nextCursor } : undefined } }
      : { offset: page, itemsOnPage },
  );
}

export const pageRequest = (p: { page?: number; per_page?: number }): common.PageRequest => ({
  page: p.page ?? 1,
  perPage: p.per_page ?? 20,
  keyset: false,
  cursor: "",
});
