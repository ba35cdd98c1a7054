// The OAuth endpoints over plain HTTP, for what the suites check beside openid-client.
import { call, type Reply } from "./api";
import type { RegisteredApp } from "./oauth-world";

/** GitLab's answer on /api/v4 to a revoked (or rotated) token. */
export const REVOKED = {
  error: "invalid_token",
  error_description: "Token was revoked. You have to re-authorize from the user.",
};

/** /oauth/token/info's answer to any token that is not live (GitLab never says why). */
export const INVALID_TOKEN_INFO = {
  error: "invalid_token",
  error_description: "The access token is invalid",
  state: "unauthorized",
};

/** A GET with `Authorization: Bearer <token>`. */
export const withBearer = (base: string, path: string, token: string): Promise<Reply> =>
  call(base, path, { headers: { Authorization: `Bearer ${token}` } });

/** A form-encoded POST, as OAuth clients send; with `basic`, the client authenticates with HTTP Basic. */
export function postForm(
  base: string,
  path: string,
  form: Record<string, string>,
  basic?: RegisteredApp,
): Promise<Reply> {
  const headers: Record<string, string> = { "Content-Type": "application/x-www-form-urlencoded" };
  if (basic) {
    const pair = `${encodeURIComponent(basic.clientId)}:${encodeURIComponent(basic.secret)}`;
    headers.Authorization = `Basic ${Buffer.from(pair).toString("base64")}`;
  }
  return fetch(`${base}${path}`, {
    method: "POST",
    headers,
    body: new URLSearchParams(form).toString(),
    signal: AbortSignal.timeout(10_000),
  }).then(async (res) => {
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  });
}

/** The status and body of a reply, for one `toEqual` that shows both when it fails. */
export const answer = (reply: Reply) => ({ status: reply.status, body: reply.json });

/** The header and payload of a JWT, decoded without any check (openid-client did the checking). */
export function decodeJwt(jwt: string): {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
} {
  const [header, payload] = jwt
    .split(".")
    .slice(0, 2)
    .map((part) => JSON.parse(Buffer.from(part, "base64url").toString()));
  return { header, payload };
}
