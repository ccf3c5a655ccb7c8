/**
 * Failures in the day state (docs/pipeline.md, "Day state and staleness"): the last failed attempt
 * of a step since its last success, in the overview beside the steps, with the count of attempts
 * and the next attempt; cleared by the next success; kept in KV, so a restart still shows it.
 *
 * Real parts: the app on a temp-file KV over HTTP on 127.0.0.1, an sFTP target on a port where
 * nothing listens, the local outbox.
 */
import assert from "node:assert/strict";
import { call, startServer, type TestServer } from "../support/app.ts";
import { freePort } from "../support/net.ts";
import { BEFORE_GC, DAY, portfolio, proc, rig, step } from "../support/day_ahead_rig.ts";

type Failure = { at: string; message: string; attempts: number; next_attempt_at: string | null };

async function failures(url: string): Promise<Record<string, Failure | null>> {
  const r = await call(`${url}/v1/console/delivery-days`, { headers: proc });
  const d = (r.body as {
    delivery_days: { delivery_day: string; failures: Record<string, Failure | null> }[];
  })
    .delivery_days.find((x) => x.delivery_day === DAY);
  assert.ok(d, "the day is in the overview");
  return d.failures;
}

Deno.test("a failing publish shows in the day: message, attempts, next attempt; cleared by a success; kept across a restart", async () => {
  const port = freePort();
  let kvPath: string | undefined;
  let restarted: TestServer | undefined;
  const r = await rig(BEFORE_GC, {
    PUBLISH_TARGET: "sftp",
    SFTP_HOST: "127.0.0.1",
    SFTP_PORT: String(port),
    SFTP_USERNAME: "bridge",
    SFTP_PASSWORD: "correct-horse-battery",
  });
  try {
    await portfolio(r.s);
    assert.equal((await step(r.s, DAY, "aggregate")).status, 200);
    assert.equal((await failures(r.s.url)).published, null);
    // Stopped orchestrator: no next attempt is promised.
    assert.equal((await step(r.s, DAY, "publish")).status, 502);
    let f = (await failures(r.s.url)).published!;
    assert.equal(f.attempts, 1);
    assert.match(
      f.message,
      /^publish failed: Publishing open_position_2026-11-23_v\d+\.csv failed: sFTP connection to 127\.0\.0\.1:\d+ failed/,
    );
    assert.equal(f.next_attempt_at, null);
    assert.equal(f.at, "2026-11-22T08:00:00.000Z");
    // Running orchestrator: the next attempt is the next minute.
    await call(`${r.s.url}/v1/console/start`, { method: "POST", headers: proc });
    r.clock.advance(30_000);
    assert.equal((await step(r.s, DAY, "publish")).status, 502);
    f = (await failures(r.s.url)).published!;
    assert.deepEqual([f.attempts, f.at, f.next_attempt_at], [
      2,
      "2026-11-22T08:00:30.000Z",
      "2026-11-22T08:01:00.000Z",
    ]);
    assert.equal((await failures(r.s.url)).aggregated, null, "other steps are not marked");
    // A restart on the same KV file still shows it.
    kvPath = r.s.kvPath;
    await r.s.close({ keepDir: true });
    restarted = await startServer(r.env, { clock: r.clock, kvPath });
    const again = restarted;
    assert.equal((await failures(again.url)).published?.attempts, 2);
    // The outbox takes the file: the failure is gone.
    const put = await call(`${again.url}/v1/console/config`, {
      method: "PUT",
      headers: proc,
      body: JSON.stringify({ publish_target: "outbox" }),
    });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.equal((await step(again, DAY, "publish")).status, 200);
    assert.equal((await failures(again.url)).published, null);
  } finally {
    if (!restarted) await r.close();
    else {
      // The rig's own server was closed for the restart: close the new one and the rest.
      await restarted.close();
      await r.sim.close();
      await Deno.remove(r.dir, { recursive: true });
      await Deno.remove(kvPath!.slice(0, kvPath!.lastIndexOf("/")), { recursive: true });
    }
  }
});
