/**
 * The status pill's words about the passes (docs/architecture.md, "Console"): green, amber after
 * a pass with a failed step, red after three failed passes or three quiet minutes while running.
 */
import assert from "node:assert/strict";
import { passHealth } from "../../lib/console/pass_health.ts";
import type { OrchestratorStatus } from "../../lib/wire/orchestrator.ts";

const T = Date.parse("2026-11-25T09:41:00Z");
const pass = (minutesAgo: number, run: number, failed: number) => ({
  started_at: new Date(T - minutesAgo * 60_000 - 2_000).toISOString(),
  finished_at: new Date(T - minutesAgo * 60_000).toISOString(),
  by: "orchestrator",
  outcome: failed ? (run ? "partial" as const : "failed" as const) : "ok" as const,
  steps_run: run,
  steps_failed: failed,
});
const status = (o: Partial<OrchestratorStatus>): OrchestratorStatus => ({
  state: "running",
  changed_at: new Date(T - 3600_000).toISOString(),
  changed_by: "ops",
  last_pass: null,
  failed_passes_in_a_row: 0,
  next_pass_at: null,
  ...o,
});

Deno.test("pass health: green, amber, red — and the pill says which", () => {
  assert.deepEqual(passHealth(status({ last_pass: pass(0, 4, 0) }), T), {
    tone: "running",
    text: "last pass ok",
  });
  assert.deepEqual(passHealth(status({ last_pass: pass(0, 2, 1) }), T), {
    tone: "amber",
    text: "the last pass had 1 failed step",
  });
  assert.deepEqual(
    passHealth(status({ last_pass: pass(0, 0, 2), failed_passes_in_a_row: 3 }), T),
    { tone: "red", text: "the last 3 passes failed" },
  );
  assert.deepEqual(passHealth(status({ last_pass: pass(4, 1, 0) }), T), {
    tone: "red",
    text: "no pass has finished for 4 min",
  });
  // Two quiet minutes are still fine; a stopped orchestrator is never "quiet".
  assert.equal(passHealth(status({ last_pass: pass(2, 1, 0) }), T).tone, "running");
  assert.equal(
    passHealth(status({ state: "stopped", last_pass: pass(60, 1, 0) }), T).tone,
    "stopped",
  );
  assert.deepEqual(passHealth(status({}), T), {
    tone: "red",
    text: "no pass has finished since the start 60 min ago",
  });
});
