/**
 * `GET /metrics` and the metrics listener (docs/metrics.md): process scope on the main port, no
 * credentials on `METRICS_PORT`; requests counted by route pattern (never the raw path), method
 * and status; refusals by status; step runs and failures; schedule documents by day, area and
 * TSO status; the confirmation due time DST-correct; the pass health after a failed pass.
 *
 * Real parts: the app on a temp-file KV over HTTP on 127.0.0.1, a fake clock.
 */
import assert from "node:assert/strict";
import { FakeClock } from "../../lib/clock.ts";
import { applyAnswer, markSent } from "../../lib/fahrplan/tso_status.ts";
import { call, startServer, type TestServer } from "../support/app.ts";
import { EXT, keysEnv, PROC } from "../support/keys.ts";
import { metricsListener, sample } from "../support/metrics.ts";
import { spawnService } from "../support/service_process.ts";

/** 2026-03-28 10:00 Berlin (CET): tomorrow, 29 March, is the day the clocks go forward. */
const NOW = Date.parse("2026-03-28T09:00:00Z");
const AREAS = "10YDE-RWENET---I,10YDE-EON------1";

async function scrape(s: TestServer): Promise<string> {
  const r = await fetch(`${s.url}/metrics`, { headers: { "x-api-key": PROC } });
  assert.equal(r.status, 200);
  assert.match(r.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
  return await r.text();
}

Deno.test("GET /metrics: process scope, requests by route pattern, refusals by status", async () => {
  const s = await startServer(keysEnv({ ACTIVE_CONTROL_AREAS: AREAS }), {
    clock: new FakeClock(NOW),
  });
  try {
    assert.equal((await call(`${s.url}/metrics`)).status, 401);
    assert.equal((await call(`${s.url}/metrics`, { headers: { "x-api-key": EXT } })).status, 403);
    for (const day of ["2026-03-29", "2026-03-30"]) {
      await call(`${s.url}/v1/delivery-days/${day}/open-position`, {
        headers: { "x-api-key": PROC },
      });
    }
    const text = await scrape(s);
    const route = "/v1/delivery-days/{day}/open-position";
    assert.equal(sample(text, "fahrplan_http_requests_total", { route, method: "GET" }), 2);
    assert.ok(!text.includes("2026-03-29"), "a raw path is never a label");
    assert.equal(
      sample(text, "fahrplan_http_request_duration_seconds_count", { route, method: "GET" }),
      2,
    );
    assert.equal(
      sample(text, "fahrplan_http_requests_total", {
        route: "/metrics",
        method: "GET",
        status: "401",
      }),
      1,
    );
    assert.equal(sample(text, "fahrplan_http_refusals_total", { status: "401" }), 1);
    assert.equal(sample(text, "fahrplan_http_refusals_total", { status: "403" }), 1);
    // Tomorrow's schedules are due confirmed at 15:00 Berlin today (CET, UTC+1) = 14:00 UTC.
    assert.equal(
      sample(text, "fahrplan_schedule_confirmation_due_timestamp_seconds"),
      Date.parse("2026-03-28T14:00:00Z") / 1000,
    );
    // No document yet: both active areas are unconfirmed, and shown as `none`.
    assert.equal(sample(text, "fahrplan_schedules_unconfirmed", { day: "tomorrow" }), 2);
    assert.equal(
      sample(text, "fahrplan_schedule_documents", {
        day: "tomorrow",
        control_area: "10YDE-RWENET---I",
        tso_status: "none",
      }),
      1,
    );
    assert.equal(sample(text, "fahrplan_orchestrator_running"), 0);
    // No pass yet: no time of a last (successful) pass, rather than 1970.
    assert.equal(
      sample(text, "fahrplan_orchestrator_last_successful_pass_timestamp_seconds"),
      undefined,
    );
    assert.equal(sample(text, "fahrplan_live_stream_clients"), 0);
    assert.equal(
      sample(text, "fahrplan_kv_retries_total", { reason: "locked" }) !== undefined,
      true,
    );
  } finally {
    await s.close();
  }
});

Deno.test("metrics: a confirmed schedule, a failed step and a pass show", async () => {
  const clock = new FakeClock(NOW);
  const s = await startServer(keysEnv({ ACTIVE_CONTROL_AREAS: AREAS }), { clock });
  try {
    const area = "10YDE-RWENET---I";
    await markSent(s.bridge.ctx.kv, "2026-03-29", {
      control_area: area,
      receiver: "10XDE-RWENET---W",
      version: 1,
      file: "f.xml",
      at: new Date(NOW).toISOString(),
    });
    await applyAnswer(s.bridge.ctx.kv, "2026-03-29", area, 1, {
      tso_status: "confirmed",
      reason_code: null,
      reason_text: null,
      at: new Date(NOW).toISOString(),
    });
    // Nothing aggregated: publishing fails (an orchestration_error event).
    const r = await call(`${s.url}/v1/delivery-days/2026-03-29/publish`, {
      method: "POST",
      headers: { "x-api-key": PROC },
    });
    assert.ok(r.status >= 400, `publish answered ${r.status}`);
    const text = await scrape(s);
    const doc = { day: "tomorrow", control_area: area };
    assert.equal(
      sample(text, "fahrplan_schedule_documents", { ...doc, tso_status: "confirmed" }),
      1,
    );
    assert.equal(sample(text, "fahrplan_schedule_documents", { ...doc, tso_status: "none" }), 0);
    assert.equal(sample(text, "fahrplan_schedules_unconfirmed", { day: "tomorrow" }), 1);
    assert.equal(sample(text, "fahrplan_pipeline_step_runs_total", { step: "publish" }), 1);
    assert.equal(sample(text, "fahrplan_pipeline_step_failures_total", { step: "publish" }), 1);
    assert.equal(sample(text, "fahrplan_pipeline_step_failures_total", { step: "submit" }), 0);
    assert.equal(
      sample(text, "fahrplan_events_appended_total", {
        kind: "orchestration_error",
        level: "warning",
      }),
      1,
    );
    // A manual pass: it generates, aggregates and publishes tomorrow, then cannot submit (no
    // market platform configured): a partial pass, not a successful one.
    clock.advance(60_000);
    const pass = await call(`${s.url}/v1/orchestrate`, {
      method: "POST",
      headers: { "x-api-key": PROC },
    });
    assert.equal(pass.status, 200);
    const after = await scrape(s);
    const at = (NOW + 60_000) / 1000;
    assert.equal(sample(after, "fahrplan_orchestrator_passes_total", { outcome: "partial" }), 1);
    assert.equal(sample(after, "fahrplan_orchestrator_last_pass_timestamp_seconds"), at);
    assert.equal(
      sample(after, "fahrplan_orchestrator_last_successful_pass_timestamp_seconds"),
      undefined,
    );
    assert.equal(sample(after, "fahrplan_pipeline_step_runs_total", { step: "publish" }), 2);
    assert.equal(sample(after, "fahrplan_pipeline_step_failures_total", { step: "publish" }), 1);
    assert.equal(sample(after, "fahrplan_pipeline_step_failures_total", { step: "submit" }), 1);
    // Tomorrow's aggregate exists now: no market location, so nothing is missing.
    assert.equal(sample(after, "fahrplan_forecasts_missing_ratio", { day: "tomorrow" }), 0);
  } finally {
    await s.close();
  }
});

Deno.test("metrics listener: the same text without credentials, only /metrics", async () => {
  const s = await startServer(keysEnv(), { clock: new FakeClock(NOW) });
  const listener = await metricsListener(s.bridge);
  try {
    const port = listener.port;
    const r = await fetch(`http://127.0.0.1:${port}/metrics`);
    assert.equal(r.status, 200);
    const text = await r.text();
    assert.match(text, /^# HELP fahrplan_/m);
    assert.equal(sample(text, "fahrplan_orchestrator_failed_passes_in_a_row"), 0);
    const other = await call(`http://127.0.0.1:${port}/v1/console/status`);
    assert.equal(other.status, 404);
    const post = await call(`http://127.0.0.1:${port}/metrics`, { method: "POST" });
    assert.equal(post.status, 405);
  } finally {
    await listener.close();
    await s.close();
  }
});

Deno.test("main.ts: METRICS_PORT starts the listener, SIGTERM closes it", async () => {
  const svc = await spawnService(keysEnv({ METRICS_PORT: "0" }));
  try {
    let port: number | undefined;
    for (let i = 0; i < 100 && port === undefined; i++) {
      const m = /metrics without credentials at http:\/\/127\.0\.0\.1:(\d+)\/metrics/.exec(
        svc.output().stdout,
      );
      if (m) port = Number(m[1]);
      else await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(port, `no metrics line in ${svc.output().stdout}`);
    assert.notEqual(port, svc.port);
    const r = await fetch(`http://127.0.0.1:${port}/metrics`);
    assert.equal(r.status, 200);
    assert.match(await r.text(), /^# TYPE fahrplan_http_requests_total counter$/m);
  } finally {
    await svc.close();
  }
});
