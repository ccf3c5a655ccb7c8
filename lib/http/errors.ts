/**
 * Error bodies (docs/architecture.md, "Errors"): `{"detail": "<sentence>"}` for 401/403/404/409/413/429/503,
 * and the 422 list of `{loc, msg, type, input, ctx}`. Both carry the API headers of
 * {@link json}.
 * @module
 */
import { json } from "./respond.ts";

/** One 422 item, the shape FastAPI/pydantic clients parse (docs/architecture.md, "Errors"). */
export interface ValidationItem {
  /** Where: e.g. `["body", "sftp_host"]` or `["query", "limit"]`. */
  loc: (string | number)[];
  /** A sentence for a person. */
  msg: string;
  /** Stable machine code, e.g. `value_error.eic`, `extra_forbidden`, `int_parsing`. */
  type: string;
  /**
   * The offending value; `null` for a secret field, an unknown field and a body that did not
   * parse (never quoted there). Any configured secret in it is masked by the answer's redaction.
   */
  input: unknown;
  /** Extra facts, e.g. `{expected: "…"}`; `{}` when none. */
  ctx: Record<string, unknown>;
}

/** Thrown by handlers to answer 422 with {@link ValidationItem}s. */
export class ValidationFailed extends Error {
  /** The items of the 422 body. */
  readonly items: ValidationItem[];
  constructor(items: ValidationItem[]) {
    super(items.map((i) => `${i.loc.join(".")}: ${i.msg}`).join("; "));
    this.name = "ValidationFailed";
    this.items = items;
  }
}

/** Thrown by handlers to answer with `status` and `{detail}`. */
export class HttpProblem extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;
  constructor(status: number, detail: string, headers: Record<string, string> = {}) {
    super(detail);
    this.name = "HttpProblem";
    this.status = status;
    this.headers = headers;
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
