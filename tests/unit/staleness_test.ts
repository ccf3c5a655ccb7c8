/**
 * Which step of a day is stale and why (docs/pipeline.md, "Day state and staleness"), on
 * hand-built day states: the decision (`staleness`) and the overview entry of
 * `GET /v1/console/delivery-days` that shows it. No KV, no HTTP.
 */
import assert from "node:assert/strict";
import {
  type DayState,
  type InputChange,
  overview,
  type StepRecord,
} from "../../lib/pipeline/day_state.ts";
import { staleness } from "../../lib/pipeline/staleness.ts";

const rec = (version: number): StepRecord => ({
  version,
  at: "2026-11-22T08:00:00.000Z",
  by: "ops",
  detail: { note: `v${version}` },
});

const change = (over: Partial<InputChange> = {}): InputChange => ({
  at: "2026-11-22T09:41:00.000Z", // 10:41 in Berlin (CET)
  by: "acme",
  market_locations: 12,
  source: "customer",
  ...over,
});

/** 2026-11-23 at input version 8: forecast current, aggregate at 7, publish and submit at 6. */
const state = (last_input: InputChange | null = change()): DayState => ({
  delivery_day: "2026-11-23",
  input_version: 8,
  last_input,
  steps: { forecast: rec(8), aggregated: rec(7), published: rec(6), submitted: rec(6) },
});

Deno.test("staleness: a step behind the input version is stale; the reason names what arrived, when, and both versions", () => {
  assert.deepEqual(staleness(state(), "aggregated"), {
    stale: true,
    reason:
      "newer forecast for 12 market locations at 10:41 Berlin (input version 8, this step has 7)",
  });
  assert.deepEqual(staleness(state(), "published"), {
    stale: true,
    reason:
      "newer forecast for 12 market locations at 10:41 Berlin (input version 8, this step has 6)",
  });
});

Deno.test("staleness: a step at (or past) the input version is current, without a reason", () => {
  assert.deepEqual(staleness(state(), "forecast"), { stale: false, reason: null });
  const ahead = state();
  ahead.steps.aggregated = rec(9);
  assert.deepEqual(staleness(ahead, "aggregated"), { stale: false, reason: null });
});

Deno.test("staleness: a step that never ran is neither stale nor current", () => {
  const s = state();
  delete s.steps.submitted;
  assert.equal(staleness(s, "submitted"), null);
});

Deno.test("staleness: the reason names generated forecasts, master data, one location, Berlin summer time", () => {
  const reason = (li: InputChange) => staleness(state(li), "aggregated")?.reason;
  assert.equal(
    reason(change({ source: "generated", market_locations: 3 })),
    "newer generated forecast for 3 market locations at 10:41 Berlin (input version 8, this step has 7)",
  );
  assert.equal(
    reason(change({ source: "master_data", market_locations: 1 })),
    "master data changed for 1 market location at 10:41 Berlin (input version 8, this step has 7)",
  );
  // CEST: 08:41 UTC is 10:41 in Berlin in July (and 09:41 in November, above).
  assert.equal(
    reason(change({ at: "2026-07-01T08:41:00.000Z", market_locations: 1 })),
    "newer forecast for 1 market location at 10:41 Berlin (input version 8, this step has 7)",
  );
});

Deno.test("staleness: stale without a recorded input change has no reason to give", () => {
  assert.deepEqual(staleness(state(null), "aggregated"), { stale: true, reason: null });
});

Deno.test("overview: each step's record with its staleness; a step never run is null", () => {
  const s = state();
  delete s.steps.submitted;
  const now = Date.parse("2026-11-22T10:00:00Z"); // 11:00 Berlin, before gate closure
  const o = overview(s, now, "12:00");
  assert.deepEqual(o.steps.forecast, { ...rec(8), stale: false, stale_reason: null });
  assert.deepEqual(o.steps.aggregated, {
    ...rec(7),
    stale: true,
    stale_reason:
      "newer forecast for 12 market locations at 10:41 Berlin (input version 8, this step has 7)",
  });
  assert.equal(o.steps.published?.stale, true);
  assert.equal(o.steps.submitted, null);
  assert.deepEqual(
    [o.quarter_hours, o.gate_closure_passed, o.input_version],
    [96, false, 8],
  );
  assert.equal(overview(s, Date.parse("2026-11-22T11:00:00Z"), "12:00").gate_closure_passed, true);
});
