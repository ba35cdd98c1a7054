/** GitLab's offset and keyset pagination headers, computed without a server. */
import { paginationHeaders, type PagedRequest } from "../src/http/pagination";

const URL = "https://canopy.example.com/";
const request = (query: PagedRequest["query"]): PagedRequest => ({ path: "/api/v4/groups", query });
const info = (page: number, perPage: number, total: number, totalCapped = false) => ({
  page,
  perPage,
  total,
  totalCapped,
  nextCursor: "",
});

describe("offset", () => {
  test("a middle page has every header and four links, query kept, tokens dropped", () => {
    const headers = paginationHeaders(
      request({ search: "a b", private_token: "glpat-secret", page: "2", per_page: "2" }),
      URL,
      { offset: info(2, 2, 5), itemsOnPage: 2 },
    );
    const link = (p: number) =>
      `<https://canopy.example.com/api/v4/groups?page=${p}&per_page=2&search=a%20b>`;
    expect(headers).toEqual({
      "X-Per-Page": "2",
      "X-Page": "2",
      "X-Next-Page": "3",
      "X-Prev-Page": "1",
      "X-Total": "5",
      "X-Total-Pages": "3",
      Link: `${link(1)}; rel="prev", ${link(3)}; rel="next", ${link(1)}; rel="first", ${link(3)}; rel="last"`,
    });
  });

  test("a capped count leaves out the totals and rel=last; a full page has a next", () => {
    const headers = paginationHeaders(request({}), URL, {
      offset: info(1, 20, 10_000, true),
      itemsOnPage: 20,
    });
    expect(headers["X-Total"]).toBeUndefined();
    expect(headers["X-Total-Pages"]).toBeUndefined();
    expect(headers["X-Next-Page"]).toBe("2");
    expect(headers.Link).not.toContain('rel="last"');
  });
});

describe("keyset", () => {
  test("a next page is a single rel=next link carrying the cursor and the request's ordering", () => {
    const headers = paginationHeaders(
      request({ pagination: "keyset", order_by: "name", sort: "asc", cursor: "old", access_token: "t" }),
      URL,
      { keyset: { perPage: 20, next: { cursor: "eyJuYW1lIjoiYiJ9" } } },
    );
    expect(headers).toEqual({
      Link:
        "<https://canopy.example.com/api/v4/groups?cursor=eyJuYW1lIjoiYiJ9&order_by=name" +
        '&pagination=keyset&per_page=20&sort=asc>; rel="next"',
    });
  });

  test("an id_after-style cursor works the same way", () => {
    const headers = paginationHeaders(request({ pagination: "keyset", order_by: "id" }), URL, {
      keyset: { perPage: 2, next: { id_after: "42" } },
    });
    expect(headers.Link).toBe(
      '<https://canopy.example.com/api/v4/groups?id_after=42&order_by=id&pagination=keyset&per_page=2>; rel="next"',
    );
  });

  test("the last page has no headers at all", () => {
    expect(paginationHeaders(request({ pagination: "keyset" }), URL, { keyset: { perPage: 20 } })).toEqual(
      {},
    );
  });
});
