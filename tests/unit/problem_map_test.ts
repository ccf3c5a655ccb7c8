/**
 * Domain errors to HTTP (docs/architecture.md, "Errors"; lib/http/problem_map.ts): the code →
 * status table, and the bodies a caller gets — `{detail: <sentence>}`, or for invalid input the
 * 422 list of `{loc, msg, type, input, ctx}` — with the API headers. No server involved.
 */
import assert from "node:assert/strict";
import {
  DomainError,
  GateClosed,
  type InputIssue,
  InvalidInput,
  NotAggregated,
  NotConfigured,
  PassRunning,
  PublishFailed,
  ScheduleInvalid,
  SubmissionInFlight,
} from "../../lib/domain/errors.ts";
import { ValidationFailed } from "../../lib/http/errors.ts";
import { KvContentionError } from "../../lib/store/kv.ts";
import { domainErrorResponse, STATUS_OF_CODE } from "../../lib/http/problem_map.ts";

const ITEM: InputIssue = {
  loc: ["body", "forecasts", 3, "values"],
  msg: "delivery day 2026-03-29 has 92 quarter-hours; got 96 values",
  type: "value_error.quarter_hour_count",
  input: 96,
  ctx: { expected: 92, actual: 96 },
};

async function answer(err: DomainError) {
  const res = domainErrorResponse(err);
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    cache: res.headers.get("cache-control"),
    nosniff: res.headers.get("x-content-type-options"),
    body: await res.json(),
  };
}

Deno.test("code → status: the table of docs/architecture.md, every code", () => {
  assert.deepEqual({ ...STATUS_OF_CODE }, {
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
  assert.ok(Object.isFrozen(STATUS_OF_CODE));
});

Deno.test("refusals and failures answer {detail: <the error's sentence>} with their status", async () => {
  const cases: [DomainError, number][] = [
    [new GateClosed("Gate closure for delivery day 2026-11-23 was 2026-11-22T11:00:00Z."), 409],
    [new NotAggregated("2026-11-23", "publish"), 409],
    [new NotConfigured("ERR_PLATFORM_NOT_CONFIGURED", "No market platform configured."), 409],
    [new NotConfigured("ERR_SCHEDULE_PARTIES_MISSING", "No balancing group."), 409],
    [new ScheduleInvalid(["the sale has 95 positions; the day has 96 quarter-hours"]), 409],
    [new SubmissionInFlight("Version 3 is being submitted."), 409],
    [new PassRunning("A pass is running."), 409],
    [new PublishFailed("The sFTP server refused the file."), 502],
    [new DomainError("ERR_SUBMIT_FAILED", "failed", "The platform answered 500."), 502],
  ];
  for (const [err, status] of cases) {
    const a = await answer(err);
    assert.deepEqual(a, {
      status,
      type: "application/json",
      cache: "no-store",
      nosniff: "nosniff",
      body: { detail: err.message },
    }, err.code);
  }
  assert.equal(
    (await answer(new NotAggregated("2026-11-23", "submit"))).body.detail,
    "Delivery day 2026-11-23 has not been aggregated yet; nothing to submit.",
  );
});

Deno.test("invalid input answers 422 with every item, whichever code it carries", async () => {
  const second: InputIssue = {
    ...ITEM,
    loc: ["body", "forecasts", 4],
    type: "value_error.duplicate",
  };
  for (
    const err of [
      new InvalidInput([ITEM, second], "ERR_FORECAST_INVALID"),
      new InvalidInput([ITEM, second], "ERR_CONFIG_INVALID"),
      new InvalidInput([ITEM, second]),
      new ValidationFailed([ITEM, second]),
    ]
  ) {
    const a = await answer(err);
    assert.deepEqual(a, {
      status: 422,
      type: "application/json",
      cache: "no-store",
      nosniff: "nosniff",
      body: { detail: [ITEM, second] },
    }, err.code);
  }
  // The body is the items, not the sentence the error carries for the log.
  const err = new InvalidInput([ITEM], "ERR_FORECAST_INVALID");
  assert.equal(err.message, `body.forecasts.3.values: ${ITEM.msg}`);
  assert.equal(new ValidationFailed([ITEM]).code, "ERR_INPUT_INVALID");
});

Deno.test("a store that stayed contended answers 503 with Retry-After and a sentence, never 500", async () => {
  const err = new KvContentionError("put market location 51238696788", 50);
  const res = domainErrorResponse(err);
  assert.equal(res.status, 503);
  assert.equal(res.headers.get("retry-after"), "1");
  assert.equal(res.headers.get("content-type"), "application/json");
  assert.deepEqual(await res.json(), {
    detail: "put market location 51238696788: still conflicting after 50 attempts, so it was " +
      "not done; the store is busy with concurrent writes (e.g. another replica), try again in 1 s.",
  });
  assert.equal(err.code, "ERR_KV_CONTENTION");
  assert.ok(err instanceof DomainError, "a domain error, mapped at the edge");
});
