import assert from "node:assert/strict";
import { FakeClock } from "../../lib/clock.ts";
import { EventHub } from "../../lib/store/event_hub.ts";
import { EventLog, type EventRecord } from "../../lib/store/events.ts";

Deno.test("event hub: catch-up, live delivery, heartbeats; closing the last reader stops every timer", async () => {
  const dir = await Deno.makeTempDir();
  const kv = await Deno.openKv(`${dir}/h.kv`);
  try {
    const log = new EventLog(kv, new FakeClock());
    for (let i = 0; i < 3; i++) await log.append({ kind: "config_changed", message: `e${i}` });
    const hub = new EventHub(log, { pollMs: 20, heartbeatMs: 30 });
    const got: number[] = [];
    let beats = 0;
    const sub = await hub.subscribe(1, {
      onEvents: (rs: EventRecord[]) => got.push(...rs.map((r) => r.id)),
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
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
