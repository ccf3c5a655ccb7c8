/**
 * The metrics' parts (docs/metrics.md): request meters, step and pass counters from events, the
 * confirmation due time on clock-change days, KV retries, and the metrics settings.
 */
import assert from "node:assert/strict";
import { FakeClock } from "../../lib/clock.ts";
import { HttpMetrics } from "../../lib/metrics/http_metrics.ts";
import { PipelineMetrics } from "../../lib/metrics/pipeline_metrics.ts";
import { createRegistry, renderMetrics } from "../../lib/metrics/registry.ts";
import { registerStateGauges } from "../../lib/metrics/state_gauges.ts";
import { loadSettings, SettingsError } from "../../lib/settings.ts";
import type { EventRecord } from "../../lib/store/events.ts";
import { kvRetryCounts, retryKv } from "../../lib/store/kv.ts";
import { sample } from "../support/metrics.ts";

Deno.test("request meters: counts per route pattern and status, refusals, durations", async () => {
  const registry = createRegistry();
  const http = new HttpMetrics(registry);
  const day = http.route("/v1/delivery-days/{day}/publish", "POST");
  day.record(200, 0.002);
  day.record(200, 0.3);
  day.record(401, 0.0001);
  day.record(429, 0.0001);
  day.record(404, 0.0001);
  const text = await renderMetrics(registry);
  const route = "/v1/delivery-days/{day}/publish";
  const ok = { route, method: "POST", status: "200" };
  assert.equal(sample(text, "fahrplan_http_requests_total", ok), 2);
  assert.equal(sample(text, "fahrplan_http_request_duration_seconds_count", ok), 2);
  assert.equal(
    sample(text, "fahrplan_http_request_duration_seconds_bucket", { ...ok, le: "0.0025" }),
    1,
  );
  assert.equal(
    sample(text, "fahrplan_http_request_duration_seconds_bucket", { ...ok, le: "0.5" }),
    2,
  );
  assert.equal(sample(text, "fahrplan_http_refusals_total", { status: "401" }), 1);
  assert.equal(sample(text, "fahrplan_http_refusals_total", { status: "429" }), 1);
  assert.equal(sample(text, "fahrplan_http_refusals_total", { status: "404" }), undefined);
  // A second scrape counts on, it does not add the totals again.
  day.record(200, 0.01);
  assert.equal(sample(await renderMetrics(registry), "fahrplan_http_requests_total", ok), 3);
});

const event = (kind: string, level = "info", data?: Record<string, unknown>) =>
  ({ id: 1, ts: "2026-11-24T09:00:00Z", kind, level, message: "m", data }) as EventRecord;

Deno.test("step runs and failures come from the step events and orchestration errors", async () => {
  const registry = createRegistry();
  const m = new PipelineMetrics(registry);
  m.onEvents([
    event("forecasts_generated"),
    event("positions_aggregated", "warning"),
    event("orchestration_error", "error", { step: "submit" }),
    event("orchestration_error", "error", { replica: "r1" }), // a tick, not a step
    event("orchestration_error", "error", { step: "<script>" }), // never a label
  ]);
  m.onPass({
    started_at: "2026-11-24T09:00:00.000Z",
    finished_at: "2026-11-24T09:00:02.500Z",
    by: "orchestrator",
    outcome: "failed",
    steps_run: 0,
    steps_failed: 1,
  });
  const text = await renderMetrics(registry);
  assert.equal(sample(text, "fahrplan_pipeline_step_runs_total", { step: "forecast" }), 1);
  assert.equal(sample(text, "fahrplan_pipeline_step_runs_total", { step: "aggregate" }), 1);
  assert.equal(sample(text, "fahrplan_pipeline_step_runs_total", { step: "submit" }), 1);
  assert.equal(sample(text, "fahrplan_pipeline_step_failures_total", { step: "submit" }), 1);
  assert.equal(sample(text, "fahrplan_pipeline_step_failures_total", { step: "forecast" }), 0);
  assert.ok(!text.includes("<script>"));
  assert.equal(
    sample(text, "fahrplan_events_appended_total", { kind: "orchestration_error", level: "error" }),
    3,
  );
  assert.equal(
    sample(text, "fahrplan_orchestrator_pass_duration_seconds_sum", { outcome: "failed" }),
    2.5,
  );
  assert.equal(sample(text, "fahrplan_orchestrator_passes_total", { outcome: "failed" }), 1);
});

Deno.test("confirmation due: 15:00 Berlin today, in winter and summer time and on both clock changes", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const clock = new FakeClock(0);
    const registry = createRegistry();
    registerStateGauges(registry, {
      kv,
      clock,
      activeAreas: () => Promise.resolve([]),
      orchestratorState: () =>
        Promise.resolve({ state: "stopped", changed_at: null, changed_by: null }),
      passHealth: () => Promise.resolve(null),
      streamClients: () => 3,
    });
    const cases: [string, string][] = [
      ["2026-03-28T09:00:00Z", "2026-03-28T14:00:00Z"], // CET
      ["2026-03-29T09:00:00Z", "2026-03-29T13:00:00Z"], // the day the clocks go forward: CEST
      ["2026-10-24T21:30:00Z", "2026-10-24T13:00:00Z"], // 23:30 CEST, the night before
      ["2026-10-25T09:00:00Z", "2026-10-25T14:00:00Z"], // the day the clocks go back: CET
      ["2026-10-25T22:59:00Z", "2026-10-25T14:00:00Z"], // 23:59 CET, still that day
      ["2026-10-25T23:00:00Z", "2026-10-26T14:00:00Z"], // midnight Berlin: the next day
    ];
    for (const [now, due] of cases) {
      clock.advance(Date.parse(now) - clock.now());
      const text = await renderMetrics(registry);
      assert.equal(
        sample(text, "fahrplan_schedule_confirmation_due_timestamp_seconds"),
        Date.parse(due) / 1000,
        now,
      );
      assert.equal(sample(text, "fahrplan_live_stream_clients"), 3);
    }
  } finally {
    kv.close();
  }
});

Deno.test("a state that cannot be read: the scrape still answers, says so, and shows no guess", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const registry = createRegistry();
    const errors: unknown[] = [];
    registerStateGauges(registry, {
      kv,
      clock: new FakeClock(Date.parse("2026-11-24T09:00:00Z")),
      activeAreas: () => Promise.resolve(["10YDE-RWENET---I"]),
      orchestratorState: () => Promise.reject(new Error("KV unavailable")),
      passHealth: () => Promise.resolve(null),
      streamClients: () => 0,
      onError: (err) => errors.push(err),
    });
    const text = await renderMetrics(registry);
    assert.equal(sample(text, "fahrplan_state_collect_failures_total"), 1);
    assert.equal(errors.length, 1);
    assert.equal(sample(text, "fahrplan_orchestrator_running"), undefined);
    assert.equal(sample(text, "fahrplan_schedules_unconfirmed", { day: "tomorrow" }), undefined);
    assert.equal(sample(text, "fahrplan_schedule_confirmation_due_timestamp_seconds"), undefined);
  } finally {
    kv.close();
  }
});

Deno.test("KV retries are counted by reason", async () => {
  const before = { ...kvRetryCounts() };
  let n = 0;
  await retryKv(
    "test",
    () => Promise.resolve(++n < 3 ? undefined : true),
    5,
    () => Promise.resolve(),
  );
  let m = 0;
  await retryKv(
    "test",
    () => {
      if (++m < 2) return Promise.reject(new Error("database is locked"));
      return Promise.resolve(true);
    },
    5,
    () => Promise.resolve(),
  );
  assert.equal(kvRetryCounts().conflict - before.conflict, 2);
  assert.equal(kvRetryCounts().locked - before.locked, 1);
});

Deno.test("METRICS_PORT and METRICS_HOSTNAME: unset means no listener; a bad port is named", () => {
  assert.equal(loadSettings({}).metricsPort, undefined);
  assert.equal(loadSettings({}).metricsHostname, "127.0.0.1");
  const s = loadSettings({ METRICS_PORT: "9464", METRICS_HOSTNAME: "10.0.0.5" });
  assert.equal(s.metricsPort, 9464);
  assert.equal(s.metricsHostname, "10.0.0.5");
  assert.throws(
    () => loadSettings({ METRICS_PORT: "nine" }),
    (e) => e instanceof SettingsError && e.problems[0].variable === "METRICS_PORT",
  );
});
