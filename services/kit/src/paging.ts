import type { common } from "@canopy/protos";

export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 100;
/** Past this many rows lists stop counting (GitLab omits X-Total beyond 10,000). */
export const COUNT_CAP = 10_000;

/** GitLab's offset rules: page < 1 is page 1, per_page is capped at 100, anything else non-positive is 20. */
export function pageWindow(request?: Pick<common.PageRequest, "page" | "perPage">) {
  const page = Math.max(1, request?.page || 1);
  const requested = request?.perPage ?? 0;
  const perPage = requested < 1 ? DEFAULT_PER_PAGE : Math.min(requested, MAX_PER_PAGE);
  return { page, perPage, limit: perPage, offset: (page - 1) * perPage };
}

/** The PageInfo for a window, given a count made with `COUNT_CAP + 1` as its limit. */
export function pageInfo(window: { page: number; perPage: number }, counted: number): common.PageInfo {
  const capped = counted > COUNT_CAP;
  return {
    page: window.page,
    perPage: window.perPage,
    total: capped ? COUNT_CAP : counted,
    totalCapped: capped,
    nextCursor: "",
  };
}
