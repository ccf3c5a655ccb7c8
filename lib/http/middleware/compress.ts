/**
 * Compression of answers (docs/console.md, "First load"): JSON, HTML, JavaScript, CSS, XML, CSV
 * and SVG answers of at least {@link MIN_COMPRESS_BYTES} travel Brotli- (`br`) or gzip-encoded
 * when the client's `Accept-Encoding` allows it (RFC 9110 §12.5.3; Brotli: RFC 7932).
 *
 * It wraps every route from the outside, so it sees the final answer: the body has passed the
 * redaction step (`lib/http/redact_answer.ts`) and the headers are complete. Left alone: event
 * streams (each event must leave at once), answers under 1 KB (a small JSON answer such as the
 * health check is sent as it is, without reading or copying its body), HEAD, 204/206/304, bodies
 * already encoded and `Cache-Control: no-transform`. Every compressible answer carries
 * `Vary: Accept-Encoding`. A strong `ETag` becomes weak (the bytes differ from the identity
 * form; `If-None-Match` compares weakly). The encoded bytes of an answer with an `ETag` (the
 * static files) are kept, so each file is compressed once per encoding.
 * @module
 */
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../env.ts";
import { jsonBodyOf } from "../respond.ts";

/** Answers smaller than this many bytes are sent as they are. */
export const MIN_COMPRESS_BYTES = 1024;

const COMPRESSIBLE =
  /^(application\/(json|problem\+json|xml|javascript|[a-z.+-]*\+(json|xml))|text\/(?!event-stream)[a-z.+-]+|image\/svg\+xml)(;|$)/i;
const NO_TRANSFORM = /(^|,)\s*no-transform\s*(,|$)/i;

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);
/** Encoded bodies by `ETag` and encoding (static files); bounded. */
const byEtag = new Map<string, Uint8Array>();
const MAX_KEPT = 64;

/**
 * The encoding to use for `header` (an `Accept-Encoding` value): `br` when accepted, else `gzip`,
 * else `null`. A `q=0` refuses an encoding; `*` stands for any not named.
 */
export function chooseEncoding(header: string | undefined): "br" | "gzip" | null {
  if (!header) return null;
  const q = new Map<string, number>();
  for (const part of header.split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    const qp = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    q.set(name.trim(), qp ? Number(qp.slice(2)) || 0 : 1);
  }
  const ok = (enc: string) => (q.get(enc) ?? q.get("*") ?? 0) > 0;
  return ok("br") ? "br" : ok("gzip") ? "gzip" : null;
}

async function encode(bytes: Uint8Array, enc: "br" | "gzip"): Promise<Uint8Array> {
  const out = enc === "br"
    ? await brotli(bytes, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 5,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      },
    })
    : await gzipAsync(bytes, { level: 6 });
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

/** The middleware; register it before the routes (`app.ts`). */
export function compressAnswers(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    const res = c.res;
    const type = res.headers.get("content-type") ?? "";
    // A JSON answer's text is known (`lib/http/respond.ts`); reading `res.body` of it would turn it
    // into a stream that Deno then sends chunked, without `content-length`.
    const known = jsonBodyOf(res);
    if (
      c.req.method === "HEAD" || (known === undefined && res.body === null) ||
      !COMPRESSIBLE.test(type) ||
      res.status === 204 || res.status === 206 || res.status === 304 ||
      res.headers.has("content-encoding") ||
      NO_TRANSFORM.test(res.headers.get("cache-control") ?? "")
    ) return;
    const declared = Number(res.headers.get("content-length") ?? NaN);
    const enc = chooseEncoding(c.req.header("accept-encoding"));
    if (
      !enc || (known !== undefined && known.length < MIN_COMPRESS_BYTES / 3) ||
      declared < MIN_COMPRESS_BYTES
    ) {
      // No encoding accepted, or small for certain (a UTF-8 character is at most 3 bytes): not
      // read, not copied (the status route is benchmarked against a bare server).
      try {
        addVary(res.headers);
      } catch { /* immutable headers: sent as they are */ }
      return;
    }
    const bytes = known !== undefined
      ? new TextEncoder().encode(known)
      : new Uint8Array(await res.arrayBuffer());
    const headers = new Headers(res.headers);
    addVary(headers);
    const init = { status: res.status, statusText: res.statusText, headers };
    if (bytes.length < MIN_COMPRESS_BYTES) return replace(c, bytes, init);
    const etag = res.headers.get("etag");
    const cacheKey = etag ? `${enc} ${etag}` : undefined;
    let body = cacheKey ? byEtag.get(cacheKey) : undefined;
    if (!body) {
      body = await encode(bytes, enc);
      if (cacheKey) {
        if (byEtag.size >= MAX_KEPT) byEtag.delete(byEtag.keys().next().value!);
        byEtag.set(cacheKey, body);
      }
    }
    headers.delete("content-length");
    headers.set("content-encoding", enc);
    if (etag && !etag.startsWith("W/")) headers.set("etag", `W/${etag}`);
    replace(c, body, init);
  };
}

/** Adds `Accept-Encoding` to `Vary` once. */
function addVary(h: Headers): void {
  const vary = h.get("vary");
  if (!vary) h.set("vary", "Accept-Encoding");
  else if (!/(^|,)\s*(accept-encoding|\*)\s*(,|$)/i.test(vary)) {
    h.set("vary", `${vary}, Accept-Encoding`);
  }
}

/**
 * Sets `c.res` to exactly `body` with `init`'s headers: Hono copies the previous answer's
 * headers onto a new one (`content-length`, a strong `etag` would come back), so they are set
 * again afterwards.
 */
function replace(
  c: Context<AppEnv>,
  body: Uint8Array,
  init: { status: number; statusText: string; headers: Headers },
): void {
  c.res = new Response(body as Uint8Array<ArrayBuffer>, init);
  const h = c.res.headers;
  for (const k of [...h.keys()]) if (!init.headers.has(k)) h.delete(k);
  for (const [k, v] of init.headers) h.set(k, v);
}
