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
import { type HeldProxy, holdingProxy } from "../support/held_proxy.ts";

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
      /^An orchestrator pass started by ops at 2026-11-22T08:00:00\.000Z is still running; try again when it has finished, or ask with \?wait=true to run after it\.$/,
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

Deno.test("a script's pass with wait=true meets the cron's pass: it waits and runs after it, without wait 409", async () => {
  // The collision `deno task demo` met on a minute boundary: its POST /v1/orchestrate arrived
  // while the cron's pass of that minute was running.
  let gate: HeldProxy | undefined;
  const r = await rig(BEFORE_GC, {}, (sim) => (gate = holdingProxy(sim.url)).url);
  try {
    await portfolio(r.s);
    await call(`${r.s.url}/v1/console/start`, { method: "POST", headers: proc });
    const order: string[] = [];
    const tick = r.s.bridge.orchestrator.tick("replica-a").finally(() => order.push("cron"));
    await gate!.arrived; // the cron's pass is at its submit step, held at the platform
    const refused = await orchestrate(r.s);
    assert.equal(refused.status, 409);
    assert.match((refused.body as { detail: string }).detail, /ask with \?wait=true/);
    const waiting = call(`${r.s.url}/v1/orchestrate?wait=true`, { method: "POST", headers: proc })
      .finally(() => order.push("script"));
    gate!.release();
    const cron = await tick;
    assert.ok(cron.ran && cron.report.days.some((d) => d.ran.includes("submit")));
    const waited = await waiting;
    assert.equal(waited.status, 200, JSON.stringify(waited.body));
    assert.deepEqual(order, ["cron", "script"]);
    // After the cron's pass nothing was left: the script's pass did not run beside it.
    assert.deepEqual((waited.body as { days: unknown[] }).days, []);
    const submitted = cron.ran ? cron.report.days.filter((d) => d.ran.includes("submit")) : [];
    assert.equal(r.sim.submissions().length, submitted.length);
    const bad = await call(`${r.s.url}/v1/orchestrate?wait=soon`, {
      method: "POST",
      headers: proc,
    });
    assert.equal(bad.status, 422);
  } finally {
    await r.close();
    await gate?.close();
  }
});
