import type { Context } from "koa";
import type { common } from "@canopy/protos";
import { param } from "./params";

/**
 * GitLab's offset pagination headers (lib/gitlab/pagination/offset_header_builder.rb). Link URLs use
 * the public base URL, with every current query parameter plus page and per_page, keys sorted.
 * When the count was capped, X-Total, X-Total-Pages and rel="last" are left out.
 */
export function setPaginationHeaders(
  ctx: Context,
  info: common.PageInfo,
  itemsOnPage: number,
  externalUrl: string,
) {
  const { page, perPage } = info;
  const totalPages = info.totalCapped ? undefined : Math.max(Math.ceil(info.total / perPage), 1);
  const hasNext = totalPages === undefined ? itemsOnPage === perPage : page < totalPages;
  const link = (p: number) => {
    // Tokens given as parameters are not repeated into a header that proxies and clients may log.
    const { private_token: _p, access_token: _a, ...requestQuery } = ctx.query;
    const params = { ...requestQuery, page: String(p), per_page: String(perPage) } as Record<string, unknown>;
    const query = Object.keys(params)
      .sort()
      .flatMap((k) =>
        [params[k]].flat().map((v) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`),
      )
      .join("&");
    return `<${externalUrl.replace(/\/+$/, "")}${ctx.path}?${query}>`;
  };
  const links = [
    page > 1 ? `${link(page - 1)}; rel="prev"` : undefined,
    hasNext ? `${link(page + 1)}; rel="next"` : undefined,
    `${link(1)}; rel="first"`,
    totalPages !== undefined ? `${link(totalPages)}; rel="last"` : undefined,
  ];
  ctx.set({
    "X-Per-Page": String(perPage),
    "X-Page": String(page),
    "X-Next-Page": hasNext ? String(page + 1) : "",
    "X-Prev-Page": page > 1 ? String(page - 1) : "",
    Link: links.filter(Boolean).join(", "),
  });
  if (totalPages !== undefined)
    ctx.set({ "X-Total": String(info.total), "X-Total-Pages": String(totalPages) });
}

/** Declared on every list route; the service applies GitLab's rules (page < 1 is 1, at most 100). */
export const paginationParams = { page: param.integer().optional(), per_page: param.integer().optional() };

export const pageRequest = (p: { page?: number; per_page?: number }): common.PageRequest => ({
  page: p.page ?? 1,
  perPage: p.per_page ?? 20,
});
