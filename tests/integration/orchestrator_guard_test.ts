/**
 * One orchestrator per app, one guard for scheduled and manual passes (docs/architecture.md,
 * "Pipeline path"): while a pass runs, a tick reports `busy` and a manual pass is refused with
 * 409 in words; another app in the same process is not held up by it.
 *
 * Real parts: the app on a temp-file KV, the market-platform simulator over TLS (answering
 * slowly, so that the pass is still running), the injected clock for the market time.
 */
import assert from "node:assert/strict";
import { call, startServer } from "../support/app.ts";
import { BEFORE_GC, orchestrate, portfolio, proc, rig } from "../support/day_ahead_rig.ts";
import { env } from "../support/pipeline.ts";

Deno.test("a manual pass and a tick share one guard; another app does not", async () => {
  const r = await rig(BEFORE_GC);
  const other = await startServer(env);
  try {
    await portfolio(r.s);
    const start = await call(`${r.s.url}/v1/console/start`, { method: "POST", headers: proc });
    assert.equal(start.status, 200);
    await call(`${other.url}/v1/console/start`, { method: "POST", headers: proc });
    r.sim.delay(300); // the submit step of the pass waits for the platform
    const manual = r.s.bridge.orchestrator.runNow("ops");
    assert.deepEqual(await r.s.bridge.orchestrator.tick("replica-a"), {
      ran: false,
      reason: "busy",
    });
    const refused = await orchestrate(r.s);
    assert.equal(refused.status, 409);
    assert.match(
      (refused.body as { detail: string }).detail,
      /^An orchestrator pass started by ops at 2026-11-22T08:00:00\.000Z is still running; try again when it has finished\.$/,
    );
    // Another app in this process has its own orchestrator.
    const elsewhere = await other.bridge.orchestrator.tick("replica-b");
    assert.equal(elsewhere.ran, true, JSON.stringify(elsewhere));
    const report = await manual;
    assert.ok(report.days.some((d) => d.ran.includes("submit")), JSON.stringify(report));
    // Once it has finished, the next manual pass runs.
    r.sim.delay(0);
    const again = await orchestrate(r.s);
    assert.equal(again.status, 200);
  } finally {
    await other.close();
    await r.close();
  }
});
