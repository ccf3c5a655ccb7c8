/**
 * Response headers (docs/architecture.md: "Request path", "Console"), decided per route when it is registered, not per request:
 *
 * - **API** (every `/v1/...` and `/health` answer, errors included): `content-type` (set by the
 *   handler), `cache-control: no-store` unless the handler chose another, and
 *   `x-content-type-options: nosniff`. Nothing else: the answers are JSON, CSV or an event
 *   stream for programs, never rendered as a page, so the framing, referrer and isolation headers
 *   have nothing to protect, and every header costs on each of thousands of answers a second.
 * - **Page** (`/console` and `/static/...`): the full browser set of `hono/secure-headers`
 *   ({@link finishPage}) beside the CSP the console routes set themselves (docs/architecture.md,
 *   "Console").
 *
 * {@link json} and the error helpers build API responses complete, so the route wrapper does not
 * touch their headers again.
 * @module
 */
import type { Context } from "hono";
import { secureHeaders } from "hono/secure-headers";
import type { AppEnv } from "./env.ts";

/** Headers every API answer carries besides its content type. */
export const API_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
});

/**
 * Security headers of the console page and its files: Hono's secure-headers middleware
 * (https://hono.dev/docs/middleware/builtin/secure-headers) with its defaults — CORP and COOP
 * `same-origin`, `Origin-Agent-Cluster`, `Referrer-Policy: no-referrer`, HSTS, `nosniff`,
 * `X-DNS-Prefetch-Control`, `X-Download-Options`, `X-Permitted-Cross-Domain-Policies`,
 * `X-XSS-Protection: 0` — and `X-Frame-Options: DENY` (the page is never framed). The CSP is set
 * by the console routes themselves. Run only on page routes ({@link finishPage}); API answers
 * never pay for it.
 */
const pageHeaders = secureHeaders({ xFrameOptions: "DENY" });
const nothingNext = () => Promise.resolve();

/**
 * Responses built complete by {@link json}, with their body text: the wrapper leaves their
 * headers alone, and the redaction step reads the text from here instead of the stream.
 */
const complete = new WeakMap<Response, string>();

/** The body text of a response built by {@link json}, else `undefined`. */
export function jsonBodyOf(res: Response): string | undefined {
  return complete.get(res);
}

const JSON_TYPE = { "content-type": "application/json" };

/**
 * A JSON API response with the API headers.
 * @param body the JSON text (already serialised; callers may reuse one string)
 * @param status HTTP status, default 200
 * @param headers extra headers (e.g. `retry-after`); a `cache-control` here replaces `no-store`
 */
export function json(body: string, status = 200, headers?: Record<string, string>): Response {
  // One header in the constructor and the rest set afterwards is the cheapest form in Deno 2.9.
  const res = new Response(body, { status, headers: JSON_TYPE });
  const h = res.headers;
  h.set("x-content-type-options", "nosniff");
  if (headers) { for (const k in headers) h.set(k, headers[k]); }
  if (!headers || !("cache-control" in headers)) h.set("cache-control", "no-store");
  complete.set(res, body);
  return res;
}

/**
 * A JSON API answer of `value` (what routes return instead of Hono's `c.json`): built by
 * {@link json}, so its body text is known to the redaction step, which then checks it without
 * reading the response stream (docs/access-control.md, "Secrets").
 * @param status HTTP status, default 200
 * @param headers extra headers
 */
export function answer(value: unknown, status = 200, headers?: Record<string, string>): Response {
  return json(JSON.stringify(value), status, headers);
}

/** Adds the API headers to a response a handler built some other way; returns the response. */
export function finishApi(res: Response): Response {
  if (complete.has(res)) return res;
  return withHeaders(res, (h) => {
    if (!h.has("cache-control")) h.set("cache-control", "no-store");
    h.set("x-content-type-options", "nosniff");
  });
}

/**
 * Adds the page's security headers (replacing any of the same name) by running Hono's
 * secure-headers middleware on `res` as the route's answer; resolves to the response.
 * Page answers are built by our handlers, so their headers are mutable.
 */
export async function finishPage(c: Context<AppEnv>, res: Response): Promise<Response> {
  c.res = res;
  await pageHeaders(c, nothingNext);
  return c.res;
}

/** Applies `edit` to the headers; a response with immutable headers is copied first. */
function withHeaders(res: Response, edit: (h: Headers) => void): Response {
  try {
    edit(res.headers);
    return res;
  } catch {
    const copy = new Response(res.body, res);
    edit(copy.headers);
    return copy;
  }
}
