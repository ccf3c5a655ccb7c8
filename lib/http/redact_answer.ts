/**
 * The redaction step of HTTP answers (docs/access-control.md, "Secrets"): the body of every API
 * answer that carries text (JSON, plain text, CSV, XML) passes the app's {@link Redactor} before
 * it leaves, whatever the handler or an error quoted. Event streams are not read here: each event
 * was redacted when it was stored.
 *
 * A body built by `json()` is checked from its text without touching the stream, and a text the
 * redactor found clean before is not scanned again, so the hot path (the status route) stays
 * synchronous and costs one set lookup.
 * @module
 */
import type { Redactor } from "../store/redactor.ts";
import { jsonBodyOf } from "./respond.ts";

const TEXT_TYPES =
  /^(application\/(json|xml|problem\+json|[a-z.+-]*\+(json|xml))|text\/(?!event-stream))/;

/**
 * Builds the step: `answer(res)` is `res` itself when nothing needed masking, else a copy with
 * the masked body (same status and headers).
 */
export function answerRedaction(
  redactor: Redactor,
): (res: Response) => Response | Promise<Response> {
  return (res) => {
    if (redactor.size === 0) return res;
    // Never touch `res.body` of a body we know: reading the getter turns Deno's string body into
    // a stream, and the answer would then go out chunked instead of with its length.
    const known = jsonBodyOf(res);
    if (known !== undefined) {
      const masked = redactor.answer(known, true);
      return masked === known ? res : copy(res, masked);
    }
    const type = res.headers.get("content-type") ?? "";
    if (!TEXT_TYPES.test(type) || res.body === null) return res;
    return res.text().then((text) => {
      const masked = redactor.answer(text, type.includes("json"));
      return copy(res, masked);
    });
  };
}

function copy(res: Response, body: string): Response {
  const headers = new Headers(res.headers);
  headers.delete("content-length");
  return new Response(body, { status: res.status, statusText: res.statusText, headers });
}
