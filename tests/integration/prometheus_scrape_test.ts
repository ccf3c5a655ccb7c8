/**
 * A real Prometheus scrapes the service (docs/metrics.md): Debian's `prometheus` on loopback
 * scrapes the metrics listener every second, and its HTTP API answers with what the test caused —
 * a confirmed schedule and a failed step. `promtool check metrics` finds nothing to lint in the
 * service's text.
 *
 * Real parts: the app on a temp-file KV over HTTP on 127.0.0.1, its metrics listener, Debian's
 * `prometheus` and `promtool`.
 */
import assert from "node:assert/strict";
import { FakeClock } from "../../lib/clock.ts";
import { applyAnswer, markSent } from "../../lib/fahrplan/tso_status.ts";
import { call, startServer, type TestServer } from "../support/app.ts";
import { metricsListener } from "../support/metrics.ts";
import { keysEnv, PROC } from "../support/keys.ts";
import {
  PROMETHEUS_PATH,
  promtool,
  PROMTOOL_PATH,
  skipWithout,
  startPrometheus,
} from "../support/prometheus.ts";

const NOW = Date.parse("2026-11-24T09:00:00Z");
const TOMORROW = "2026-11-25";
const AREA = "10YDE-RWENET---I";

/** The app with its metrics listener on a free port; causes a confirmed schedule and a failed step. */
async function service(): Promise<{ s: TestServer; target: string; close(): Promise<void> }> {
  const s = await startServer(keysEnv({ ACTIVE_CONTROL_AREAS: `${AREA},10YDE-EON------1` }), {
    clock: new FakeClock(NOW),
  });
  const listener = await metricsListener(s.bridge);
  const at = new Date(NOW).toISOString();
  await markSent(s.kv, TOMORROW, {
    control_area: AREA,
    receiver: "10XDE-RWENET---W",
    version: 1,
    file: "schedule.xml",
    at,
  });
  await applyAnswer(s.kv, TOMORROW, AREA, 1, {
    tso_status: "confirmed",
    reason_code: null,
    reason_text: null,
    at,
  });
  // Nothing aggregated yet: the publish step fails.
  const r = await call(`${s.url}/v1/delivery-days/${TOMORROW}/publish`, {
    method: "POST",
    headers: { "x-api-key": PROC },
  });
  assert.ok(r.status >= 400);
  await call(`${s.url}/metrics`); // a refusal (401)
  return {
    s,
    target: `127.0.0.1:${listener.port}`,
    async close() {
      await listener.close();
      await s.close();
    },
  };
}

Deno.test({
  name: "promtool check metrics: the service's text is clean",
  ignore: skipWithout(PROMTOOL_PATH, "promtool check metrics"),
  async fn() {
    const svc = await service();
    try {
      const text = await (await fetch(`http://${svc.target}/metrics`)).text();
      assert.match(text, /^fahrplan_pipeline_step_failures_total\{step="publish"\} 1$/m);
      const r = await promtool(["check", "metrics"], text);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.equal((r.stdout + r.stderr).trim(), "");
      // The check can fail: a counter without `_total` is linted.
      const bad = await promtool(
        ["check", "metrics"],
        "# HELP fahrplan_x Bad.\n# TYPE fahrplan_x counter\nfahrplan_x 1\n",
      );
      assert.notEqual(bad.code, 0);
    } finally {
      await svc.close();
    }
  },
});

Deno.test({
  name: "Prometheus scrapes the listener: a confirmed schedule and a failed step are queryable",
  ignore: skipWithout(PROMETHEUS_PATH, "Prometheus scrape"),
  async fn() {
    const svc = await service();
    const prom = await startPrometheus(svc.target).catch(async (err) => {
      await svc.close();
      throw err;
    });
    try {
      const confirmed =
        `fahrplan_schedule_documents{day="tomorrow",control_area="${AREA}",tso_status="confirmed"}`;
      const failed = `fahrplan_pipeline_step_failures_total{step="publish"}`;
      const deadline = Date.now() + 30_000;
      let answers: Awaited<ReturnType<typeof prom.query>>[] = [];
      while (Date.now() < deadline) {
        answers = await Promise.all([prom.query(confirmed), prom.query(failed)]);
        if (answers.every((a) => a.length > 0)) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      console.log(JSON.stringify(answers));
      const [doc, step] = answers;
      assert.equal(doc.length, 1, "the confirmed schedule was scraped");
      assert.equal(doc[0].value[1], "1");
      assert.equal(doc[0].metric.job, "bridge");
      assert.equal(step.length, 1, "the failed step was scraped");
      assert.equal(step[0].value[1], "1");
      const unconfirmed = await prom.query(`fahrplan_schedules_unconfirmed{day="tomorrow"}`);
      assert.equal(unconfirmed[0].value[1], "1");
      const up = await prom.query(`up{job="bridge"}`);
      assert.equal(up[0].value[1], "1");
    } finally {
      await prom.close();
      await svc.close();
    }
  },
});
