/**
 * Repeated failures are one story (docs/api.md, "Event history"; lib/store/repeated_failures.ts),
 * through the orchestrator: 40 failing ticks a minute apart — the publish to an sFTP server that
 * is not there and the sFTP inbox on it, two different errors — are two stored error events with
 * `repeats` 39 each, across a restart; the process log has their two first lines and nothing per
 * repeat. When publishing works again (outbox), one recovery event and one log line; the inbox,
 * still down, goes on counting.
 *
 * Real parts: the app on a temp-file KV over HTTP on 127.0.0.1 (restarted on the same file), an
 * sFTP target on a port where nothing listens, the market-platform simulator over TLS, the
 * process log with a collecting sink; time from the FakeClock.
 */
import assert from "node:assert/strict";
import type { LogLevel } from "../../lib/log.ts";
import type { EventRecord } from "../../lib/wire/events.ts";
import { call, startServer, storedEvents, type TestServer } from "../support/app.ts";
import { freePort } from "../support/net.ts";
import { BEFORE_GC, DAY, portfolio, proc, rig } from "../support/day_ahead_rig.ts";

type Line = { level: LogLevel; kind: string; message: string };
const collector = () => {
  const lines: Line[] = [];
  return {
    lines,
    sink: { write: (level: LogLevel, l: string) => lines.push({ level, ...JSON.parse(l) }) },
  };
};
const kinds = (lines: Line[]) =>
  lines.map((l) => l.kind).filter((k) => k.startsWith("orchestration"));

Deno.test("40 failing ticks: one error event per story with repeats 39, across a restart; one recovery event; the process log alike", async () => {
  const r = await rig(BEFORE_GC, {
    PUBLISH_TARGET: "sftp",
    SFTP_HOST: "127.0.0.1",
    SFTP_PORT: String(freePort()),
    SFTP_USERNAME: "bridge",
    SFTP_PASSWORD: "correct-horse-battery",
    SFTP_INBOX_DIR: "/in",
    ORCHESTRATOR_HORIZON_DAYS: "1",
  });
  const kvPath = r.s.kvPath;
  // The same service with its process log collected.
  await r.s.close({ keepDir: true });
  const first = collector();
  let s: TestServer = await startServer(r.env, { clock: r.clock, kvPath, logSink: first.sink });
  const tick = async () => {
    await s.bridge.orchestrator.tick("replica-a");
    r.clock.advance(60_000);
  };
  const errors = async () =>
    ((await storedEvents(s.kv)) as unknown as EventRecord[]).filter((e) =>
      e.kind === "orchestration_error"
    );
  try {
    await portfolio(s);
    await call(`${s.url}/v1/console/start`, { method: "POST", headers: proc });
    for (let i = 0; i < 20; i++) await tick();
    // Three stories: the inbox, and publishing of the running day and of tomorrow (the passes
    // cover the running day, docs/intraday.md).
    assert.deepEqual(kinds(first.lines), [
      "orchestration_error",
      "orchestration_error",
      "orchestration_error",
    ]);
    await s.close({ keepDir: true });
    const second = collector();
    s = await startServer(r.env, { clock: r.clock, kvPath, logSink: second.sink });
    for (let i = 0; i < 20; i++) await tick();

    let errs = await errors();
    assert.equal(errs.length, 3, errs.map((e) => e.message).join("\n"));
    const publishes = errs.filter((e) => e.data?.step === "publish");
    assert.deepEqual(publishes.map((e) => e.delivery_day).sort(), ["2026-11-22", DAY]);
    const publish = publishes.find((e) => e.delivery_day === DAY)!;
    const [inbox] = errs.filter((e) => e.data?.inbox === "/in");
    for (const e of [...publishes, inbox]) {
      assert.equal(e.data?.repeats, 39, e.message);
      assert.equal(e.data?.first_at, "2026-11-22T08:00:00.000Z");
      assert.equal(e.data?.last_at, "2026-11-22T08:39:00.000Z");
      assert.match(e.message, / — again 39 times since 09:00 Berlin$/);
    }
    assert.equal(publish.delivery_day, DAY);
    assert.match(
      publish.message,
      /^Publishing the open position of 2026-11-23 failed: .*sFTP connection to 127\.0\.0\.1:\d+ failed/,
    );
    assert.match(inbox.message, /^The sFTP inbox \/in could not be read/);
    assert.deepEqual(kinds(second.lines), [], "nothing per repeat");

    // Publishing works again: one recovery event; the inbox is still down.
    const put = await call(`${s.url}/v1/console/config`, {
      method: "PUT",
      headers: proc,
      body: JSON.stringify({ publish_target: "outbox" }),
    });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    await tick();
    const all = (await storedEvents(s.kv)) as unknown as EventRecord[];
    const recovered = all.filter((e) =>
      e.kind === "orchestration_recovered" && e.delivery_day === DAY
    );
    assert.equal(recovered.length, 1, JSON.stringify(recovered));
    assert.equal(all.filter((e) => e.kind === "orchestration_recovered").length, 2, "both days");
    assert.equal(recovered[0].delivery_day, DAY);
    assert.match(
      recovered[0].message,
      /^Publishing the open position of 2026-11-23 works again after 40 failures since 09:00 Berlin \(first: Publishing the open position of 2026-11-23 failed: /,
    );
    assert.equal(recovered[0].data?.failure_event_id, publish.id);
    errs = await errors();
    assert.equal(errs.length, 3);
    assert.equal(errs.find((e) => e.id === inbox.id)?.data?.repeats, 40);
    assert.equal(errs.find((e) => e.id === publish.id)?.data?.repeats, 39);
    assert.deepEqual(kinds(second.lines), ["orchestration_recovered", "orchestration_recovered"]);
    assert.ok(all.some((e) => e.kind === "csv_published" && e.delivery_day === DAY));
  } finally {
    await s.close();
    await r.sim.close();
    await Deno.remove(r.dir, { recursive: true });
    await Deno.remove(kvPath.slice(0, kvPath.lastIndexOf("/")), { recursive: true });
  }
});
