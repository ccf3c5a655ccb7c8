/**
 * Pass health in the status (docs/orchestrator.md): the last finished pass —
 * scheduled or manual — with its outcome and counts, the failed passes in a row and the next
 * pass.
 *
 * Real parts: the app on a temp-file KV over HTTP on 127.0.0.1, the market-platform simulator
 * over TLS, an sFTP target where nothing listens (a failing publish), the injected clock.
 */
import assert from "node:assert/strict";
import type { OrchestratorStatus } from "../../lib/wire/orchestrator.ts";
import { call } from "../support/app.ts";
import { freePort } from "../support/net.ts";
import { BEFORE_GC, orchestrate, portfolio, proc, rig } from "../support/day_ahead_rig.ts";

const statusOf = async (url: string) =>
  ((await call(`${url}/v1/console/status`, { headers: proc })).body as {
    orchestrator: OrchestratorStatus;
  }).orchestrator;

Deno.test("status: last pass, its outcome and counts, failed passes in a row, next pass", async () => {
  const r = await rig(BEFORE_GC, {
    PUBLISH_TARGET: "sftp",
    SFTP_HOST: "127.0.0.1",
    SFTP_PORT: String(freePort()),
    SFTP_USERNAME: "bridge",
    SFTP_PASSWORD: "correct-horse-battery",
  });
  try {
    let o = await statusOf(r.s.url);
    assert.deepEqual([o.last_pass, o.failed_passes_in_a_row, o.next_pass_at], [null, 0, null]);
    await portfolio(r.s);
    // A manual pass: forecast and aggregate run, publish fails (nothing listens) → partial.
    const manual = await orchestrate(r.s);
    assert.equal(manual.status, 200);
    o = await statusOf(r.s.url);
    assert.equal(o.last_pass?.by, "ops");
    assert.equal(o.last_pass?.outcome, "partial");
    assert.ok((o.last_pass?.steps_run ?? 0) >= 2, JSON.stringify(o.last_pass));
    assert.ok((o.last_pass?.steps_failed ?? 0) >= 1, JSON.stringify(o.last_pass));
    assert.equal(o.failed_passes_in_a_row, 0);
    // Running: scheduled ticks fail to publish again and again (publish only: failed).
    await call(`${r.s.url}/v1/console/start`, { method: "POST", headers: proc });
    for (let i = 0; i < 3; i++) {
      r.clock.advance(60_000);
      const t = await r.s.bridge.orchestrator.tick("replica-a");
      assert.equal(t.ran, true);
    }
    o = await statusOf(r.s.url);
    assert.equal(o.last_pass?.by, "orchestrator");
    assert.equal(o.last_pass?.outcome, "failed");
    assert.equal(o.failed_passes_in_a_row, 3);
    assert.equal(o.next_pass_at, "2026-11-22T08:04:00.000Z");
  } finally {
    await r.close();
  }
});
