/**
 * Request size limit in two gates, so that no body byte is read before the credential and the
 * scope are checked (docs/access-control.md, "Request path"):
 *
 * 1. {@link declaredLengthLimit} runs first on every route: a declared `Content-Length` over the
 *    limit is refused with 413 at once; nothing is read.
 * 2. {@link countedBody} runs after authentication and the scope guard: a body without a declared
 *    length (chunked) is wrapped in a counting stream that fails with {@link BodyTooLarge} (413)
 *    once past the limit. The body is read only when, and as far as, the handler reads it; it is
 *    never buffered here.
 *
 * A declared length is enforced by the HTTP server itself (the body cannot be longer), so only
 * bodies without one need counting. A refused request's body is never read.
 *
 * Why not `hono/body-limit` (https://hono.dev/docs/middleware/builtin/body-limit): for a body
 * without a declared length it reads the whole body into one buffer before the handler runs
 * (up to the limit: 8 MiB per request held in memory, and read even when the handler would have
 * refused it), and as a `(c, next)` middleware it needs a composed chain per request where our
 * gates run in the route's own request path. Its declared-length check is the same as ours.
 * @module
 */
import type { Gate } from "../env.ts";
import { HttpProblem, problem } from "../errors.ts";

/** A body went past `MAX_REQUEST_BYTES` while it was read: answered with 413. */
export class BodyTooLarge extends HttpProblem {
  /** @param maxBytes the limit, in bytes */
  constructor(maxBytes: number) {
    super(413, tooLargeDetail(maxBytes));
    this.name = "BodyTooLarge";
  }
}

const tooLargeDetail = (maxBytes: number) => `Request body exceeds the limit of ${maxBytes} bytes.`;

/**
 * Gate factory: 413 for a declared `Content-Length` over `maxBytes`, before anything else.
 * @param maxBytes the limit (`MAX_REQUEST_BYTES`), in bytes
 */
export function declaredLengthLimit(maxBytes: number): Gate {
  return (c) => {
    const length = c.req.raw.headers.get("content-length");
    if (length === null || c.req.raw.headers.has("transfer-encoding")) return undefined;
    return parseInt(length || "0", 10) > maxBytes
      ? problem(413, tooLargeDetail(maxBytes))
      : undefined;
  };
}

/**
 * Gate factory: counts a body without a declared length while the handler reads it; the read
 * fails with {@link BodyTooLarge} past `maxBytes`. Never answers by itself.
 * @param maxBytes the limit (`MAX_REQUEST_BYTES`), in bytes
 */
export function countedBody(maxBytes: number): Gate {
  return (c) => {
    const raw = c.req.raw;
    // A declared length is enforced by the server. Without one (chunked HTTP/1.1, or HTTP/2,
    // which has no chunked framing) the body, if there is one, is counted.
    const declared = raw.headers.has("content-length") && !raw.headers.has("transfer-encoding");
    if (declared || !raw.body) return undefined;
    let size = 0;
    const counter = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        size += chunk.byteLength;
        if (size > maxBytes) controller.error(new BodyTooLarge(maxBytes));
        else controller.enqueue(chunk);
      },
    });
    c.req.raw = new Request(raw, { body: raw.body.pipeThrough(counter) });
    return undefined;
  };
}
