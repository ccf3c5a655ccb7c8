/**
 * Domain errors to HTTP, in one table (docs/architecture.md "Errors"): the only place that knows
 * which status a domain error code answers with. Invalid input answers 422 with its issues;
 * every other code answers `{detail: <the error's sentence>}`; a contended store (503) adds
 * `Retry-After`.
 * @module
 */
import type { DomainError, ErrorCode } from "../domain/errors.ts";
import { InvalidInput, StoreContended } from "../domain/errors.ts";
import { problem, validationResponse } from "./errors.ts";

/** HTTP status of every domain error code. */
export const STATUS_OF_CODE: Readonly<Record<ErrorCode, number>> = Object.freeze({
  ERR_GATE_CLOSED: 409,
  ERR_NOT_AGGREGATED: 409,
  ERR_PLATFORM_NOT_CONFIGURED: 409,
  ERR_SCHEDULE_PARTIES_MISSING: 409,
  ERR_SCHEDULE_INVALID: 409,
  ERR_SCHEMA_INVALID: 409,
  ERR_STATUS_REQUEST_REFUSED: 409,
  ERR_CORRECTION_REFUSED: 409,
  ERR_SUBMISSION_IN_FLIGHT: 409,
  ERR_PASS_RUNNING: 409,
  ERR_FORECAST_COVERAGE: 409,
  ERR_PUBLISH_FAILED: 502,
  ERR_SUBMIT_FAILED: 502,
  ERR_FORECAST_INVALID: 422,
  ERR_CONFIG_INVALID: 422,
  ERR_INPUT_INVALID: 422,
  ERR_KV_CONTENTION: 503,
});

/** The answer to a domain error. */
export function domainErrorResponse(err: DomainError): Response {
  if (err instanceof InvalidInput) return validationResponse(err.issues);
  if (err instanceof StoreContended) {
    // RFC 9110 §10.2.3: how long the client waits before sending the request again.
    return problem(STATUS_OF_CODE[err.code], err.message, {
      "retry-after": String(err.retryAfterSeconds),
    });
  }
  return problem(STATUS_OF_CODE[err.code], err.message);
}
