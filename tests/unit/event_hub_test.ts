import assert from "node:assert/strict";
import { FakeClock } from "../../lib/clock.ts";
import { encodeSseEvents } from "../../lib/http/sse.ts";
import { EventHub } from "../../lib/store/event_hub.ts";
import { EventLog, type EventRecord } from "../../lib/store/events.ts";
import { withKv, withTempDir } from "../support/temp.ts";

Deno.test("event hub: catch-up, live delivery, heartbeats; closing the last reader stops every timer", async () => {
  await withKv(async (kv) => {
    const log = new EventLog(kv, new FakeClock());
    for (let i = 0; i < 3; i++) await log.append({ kind: "config_changed", message: `e${i}` });
    const hub = new EventHub(log, encodeSseEvents, { pollMs: 20, heartbeatMs: 30 });
    const got: number[] = [];
    let beats = 0;
    const sub = await hub.subscribe(1, {
      onEvents: (rs: readonly EventRecord[]) => got.push(...rs.map((r) => r.id)),
      onHeartbeat: () => beats++,
      onError: (e) => assert.fail(String(e)),
    });
    await log.append({ kind: "config_changed", message: "live" });
    await new Promise((r) => setTimeout(r, 120));
    assert.deepEqual(got, [2, 3, 4]);
    assert.ok(beats >= 2, `heartbeats: ${beats}`);
    assert.equal(hub.size, 1);
    sub.close();
    assert.equal(hub.size, 0);
    // The test sanitizer fails this test if an interval of the hub were still running.
  });
});

Deno.test("retryKv: retries failed checks and 'database is locked', bounded; other errors pass", async () => {
  const { KvContentionError, retryKv } = await import("../../lib/store/kv.ts");
  let calls = 0;
  const value = await retryKv("op", () => {
    calls++;
    if (calls === 1) return Promise.resolve(undefined); // a failed .check()
    if (calls === 2) return Promise.reject(new Error("database is locked"));
    return Promise.resolve("done");
  });
  assert.deepEqual([value, calls], ["done", 3]);
  let tries = 0;
  await assert.rejects(
    retryKv("always conflicting", () => {
      tries++;
      return Promise.resolve(undefined);
    }, 4),
    (err: unknown) =>
      err instanceof KvContentionError && /always conflicting: .* 4 attempts/.test(err.message),
  );
  assert.equal(tries, 4);
  let other = 0;
  await assert.rejects(
    retryKv("op", () => {
      other++;
      return Promise.reject(new TypeError("boom"));
    }),
    TypeError,
  );
  assert.equal(other, 1, "a real error is not retried");
});

Deno.test("openKv: creates the folder of a file path; two logs on one file share the id sequence", async () => {
  const { openKv } = await import("../../lib/store/kv.ts");
  await withTempDir(async (dir) => {
    const path = `${dir}/nested/deeper/bridge.kv`;
    const a = await openKv(path);
    const b = await openKv(path);
    try {
      const la = new EventLog(a, new FakeClock());
      const lb = new EventLog(b, new FakeClock());
      const recs = await Promise.all(
        Array.from(
          { length: 40 },
          (_, i) => (i % 2 ? la : lb).append({ kind: "config_changed", message: `m${i}` }),
        ),
      );
      const idsSeen = recs.map((r) => r.id).sort((x, y) => x - y);
      assert.deepEqual(idsSeen, Array.from({ length: 40 }, (_, i) => i + 1));
      assert.equal(await la.head(), 40);
      assert.deepEqual((await lb.list({ limit: 1000 })).map((r) => r.id), idsSeen);
    } finally {
      a.close();
      b.close();
    }
  });
});

Deno.test("event hub: shutdown ends every reader once, stops the timers, and ends later readers at once", async () => {
  await withKv(async (kv) => {
    const log = new EventLog(kv, new FakeClock());
    const hub = new EventHub(log, encodeSseEvents, { pollMs: 20, heartbeatMs: 30 });
    const ended: string[] = [];
    const reader = (name: string, withEnd = true) => ({
      onEvents: () => {},
      onHeartbeat: () => {},
      onError: () => ended.push(`${name}:error`),
      ...(withEnd ? { onEnd: () => ended.push(`${name}:end`) } : {}),
    });
    await hub.subscribe(0, reader("a"));
    await hub.subscribe(0, reader("b", false));
    hub.shutdown();
    hub.shutdown();
    assert.deepEqual(ended, ["a:end", "b:error"]);
    assert.equal(hub.size, 0);
    await hub.subscribe(0, reader("late"));
    assert.deepEqual(ended, ["a:end", "b:error", "late:end"]);
    assert.equal(hub.size, 0);
    // The sanitizer fails this test if the hub's poll or heartbeat interval still ran.
  });
});
