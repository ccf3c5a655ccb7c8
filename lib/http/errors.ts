/**
 * Error bodies (docs/architecture.md, "Errors"): `{"detail": "<sentence>"}` for 401/403/404/409/413/429/503,
 * and the 422 list of `{loc, msg, type, input, ctx}`. Both carry the API headers of
 * {@link json}.
 * @module
 */
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { type InputIssue, InvalidInput } from "../domain/errors.ts";
import { json } from "./respond.ts";

/** One 422 item (docs/architecture.md "Errors"); the domain's {@link InputIssue}. */
export type ValidationItem = InputIssue;

/**
 * Thrown by routes and edge gates to answer 422 with {@link ValidationItem}s: the domain's
 * {@link InvalidInput} with the code `ERR_INPUT_INVALID`.
 */
export class ValidationFailed extends InvalidInput {
  constructor(items: ValidationItem[]) {
    super(items, "ERR_INPUT_INVALID");
    this.name = "ValidationFailed";
  }

  /** The items of the 422 body. */
  get items(): ValidationItem[] {
    return this.issues;
  }
}

/**
 * Thrown by handlers and edge gates to answer with `status` and `{detail}`: Hono's
 * {@link HTTPException} (https://hono.dev/docs/api/exception) whose response is our JSON
 * problem body with the API headers, plus extra headers (e.g. `retry-after`). Created only on a
 * refusal, so basing it on Hono's costs the answered requests nothing.
 */
export class HttpProblem extends HTTPException {
  readonly headers: Record<string, string>;
  constructor(status: ContentfulStatusCode, detail: string, headers: Record<string, string> = {}) {
    super(status, { message: detail });
    this.name = "HttpProblem";
    this.headers = headers;
  }

  /** `{"detail": message}` with the API headers and {@link HttpProblem.headers}. */
  override getResponse(): Response {
    return problem(this.status, this.message, this.headers);
  }
}

/**
 * A JSON `{detail}` response with the API headers.
 * @param headers extra headers, e.g. `retry-after` or `www-authenticate`
 */
export function problem(
  status: number,
  detail: string,
  headers?: Record<string, string>,
): Response {
  return json(JSON.stringify({ detail }), status, headers);
}

/** A 422 response with the body of docs/architecture.md, "Errors". */
export function validationResponse(items: ValidationItem[]): Response {
  return json(JSON.stringify({ detail: items }), 422);
}
