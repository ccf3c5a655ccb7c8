/**
 * Which steps the orchestrator runs for a day (docs/orchestrator.md, the table under
 * "Pass"), decided on hand-built day states: no KV, no HTTP.
 */
import assert from "node:assert/strict";
import { plannedSteps, stepNeeded } from "../../lib/orchestrator/step_selection.ts";
import type { DayState, StepName, StepRecord } from "../../lib/pipeline/day_state.ts";
import type { RunnableStep } from "../../lib/pipeline/steps.ts";

const DAY = "2026-11-23";
const MASTER = 4;

/** A step record of `version` (the forecast step's carries the master-data version it ran on). */
const rec = (version: number, detail: Record<string, unknown> = {}): StepRecord => ({
  version,
  at: "2026-11-22T08:00:00.000Z",
  by: "orchestrator",
  detail,
});

/** A day at `input_version` with the given steps recorded. */
const day = (
  input_version: number,
  steps: Partial<Record<StepName, StepRecord>> = {},
): DayState => ({ delivery_day: DAY, input_version, last_input: null, steps });

/** A day whose every step ran on input version `v` and master-data version {@link MASTER}. */
const current = (v: number): DayState =>
  day(v, {
    forecast: rec(v, { master_version: MASTER }),
    aggregated: rec(v),
    published: rec(v),
    submitted: rec(v),
  });

/** What a pass would run on a state that nothing changes in between: planned, then still needed. */
const wouldRun = (state: DayState | null, master = MASTER): RunnableStep[] =>
  plannedSteps(state, master).filter((step) => stepNeeded(state, step));

Deno.test("step selection: a day nothing has happened to gets its forecast, then an aggregate", () => {
  assert.deepEqual(plannedSteps(null, MASTER), ["forecast", "aggregate", "publish", "submit"]);
  // Nothing to publish or submit before there is an aggregate.
  assert.deepEqual(wouldRun(null), ["forecast", "aggregate"]);
  assert.deepEqual(wouldRun(day(0)), ["forecast", "aggregate"]);
});

Deno.test("step selection: a day whose every step is current runs nothing", () => {
  assert.deepEqual(plannedSteps(current(3), MASTER), ["aggregate", "publish", "submit"]);
  assert.deepEqual(wouldRun(current(3)), []);
});

Deno.test("step selection: the forecast step runs again when the master data changed since it ran", () => {
  assert.deepEqual(wouldRun(current(3), MASTER + 1), ["forecast"]);
  // A forecast record without the master-data version (never written by the step) is not current.
  const noMaster = { ...current(3), steps: { ...current(3).steps, forecast: rec(3) } };
  assert.deepEqual(wouldRun(noMaster), ["forecast"]);
});

Deno.test("step selection: the forecast step runs again when it is behind the input version", () => {
  const s = current(3);
  s.input_version = 4; // a customer forecast arrived after the pass
  assert.deepEqual(plannedSteps(s, MASTER), ["forecast", "aggregate", "publish", "submit"]);
  // The aggregate is behind too; publish and submit wait for the new aggregate.
  assert.deepEqual(wouldRun(s), ["forecast", "aggregate"]);
  // A forecast step that already consumed a later version is current.
  s.steps.forecast = rec(5, { master_version: MASTER });
  assert.deepEqual(plannedSteps(s, MASTER), ["aggregate", "publish", "submit"]);
});

Deno.test("step selection: aggregate runs when never run or behind input_version, not when level", () => {
  const s = current(5);
  assert.equal(stepNeeded(s, "aggregate"), false);
  s.steps.aggregated = rec(4);
  assert.equal(stepNeeded(s, "aggregate"), true, "aggregate version 4 < input version 5");
  delete s.steps.aggregated;
  assert.equal(stepNeeded(s, "aggregate"), true, "never aggregated");
  s.steps.aggregated = rec(6);
  assert.equal(stepNeeded(s, "aggregate"), false, "ahead of the input version");
});

Deno.test("step selection: publish and submit follow the aggregate version, not the input version", () => {
  // Input version 7 has not been aggregated yet; what was published and submitted carries the
  // current aggregate (5), so neither runs until the new aggregate exists.
  const s = day(7, {
    forecast: rec(7, { master_version: MASTER }),
    aggregated: rec(5),
    published: rec(5),
    submitted: rec(5),
  });
  assert.deepEqual(wouldRun(s), ["aggregate"]);
  // The new aggregate exists: both run again.
  s.steps.aggregated = rec(7);
  assert.deepEqual(wouldRun(s), ["publish", "submit"]);
  // Published, not yet submitted.
  s.steps.published = rec(7);
  assert.deepEqual(wouldRun(s), ["submit"]);
  s.steps.submitted = rec(7);
  assert.deepEqual(wouldRun(s), []);
});

Deno.test("step selection: publish and submit are decided each on its own record", () => {
  const s = current(2);
  delete s.steps.published;
  assert.deepEqual(wouldRun(s), ["publish"], "never published, submitted already");
  s.steps.published = rec(2);
  delete s.steps.submitted;
  assert.deepEqual(wouldRun(s), ["submit"], "published, never submitted");
  s.steps.published = rec(1);
  s.steps.submitted = rec(1);
  assert.deepEqual(wouldRun(s), ["publish", "submit"], "both carried aggregate 1, it is 2 now");
  // Without an aggregate there is nothing to carry, whatever else is recorded.
  delete s.steps.aggregated;
  assert.equal(stepNeeded(s, "publish"), false);
  assert.equal(stepNeeded(s, "submit"), false);
});

Deno.test("step selection: a planned forecast step is always still needed", () => {
  assert.equal(stepNeeded(current(3), "forecast"), true);
  assert.equal(stepNeeded(null, "forecast"), true);
});
