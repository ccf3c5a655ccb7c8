/**
 * The event hub's delivery guarantees with many readers (docs/architecture.md, "Event log and live stream"): every reader
 * gets each id exactly once, in order, whether it is live, resumes behind the head, or joins
 * while local and foreign (another log on the same KV file) appends run; the SSE bytes of a
 * batch are built once and shared; the log remembers its head without losing ids.
 */
import assert from "node:assert/strict";
import { FakeClock } from "../../lib/clock.ts";
import { encodeSseEvents, sseEventsText } from "../../lib/http/sse.ts";
import { EventHub } from "../../lib/store/event_hub.ts";
import { EventLog, type EventRecord } from "../../lib/store/events.ts";
import { tempDir } from "../support/temp.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Two logs on one KV file: `local` feeds the hub, `foreign` stands for another process. */
async function twoLogs(): Promise<
  { local: EventLog; foreign: EventLog; kvs: Deno.Kv[]; cleanup(): Promise<void> }
> {
  const dir = await tempDir();
  const a = await Deno.openKv(`${dir.path}/h.kv`);
  const b = await Deno.openKv(`${dir.path}/h.kv`);
  return {
    local: new EventLog(a, new FakeClock()),
    foreign: new EventLog(b, new FakeClock()),
    kvs: [a, b],
    async cleanup() {
      a.close();
      b.close();
      await dir.remove();
    },
  };
}

/** A reader that records ids and the decoded SSE text it was handed. */
function collector() {
  const ids: number[] = [];
  const frames: Uint8Array[] = [];
  let text = "";
  const decoder = new TextDecoder();
  return {
    ids,
    frames,
    get text() {
      return text;
    },
    reader: {
      onEvents(records: readonly EventRecord[], bytes: Uint8Array) {
        ids.push(...records.map((r) => r.id));
        frames.push(bytes);
        text += decoder.decode(bytes);
      },
      onHeartbeat() {},
      onError(err: unknown) {
        assert.fail(`reader failed: ${err}`);
      },
    },
  };
}

const range = (from: number, to: number) =>
  Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);

async function until(cond: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) assert.fail(`timed out: ${what}`);
    await sleep(10);
  }
}

Deno.test("sse hub: local and foreign appends interleaved; live, resuming and late readers each get every id once, in order", async () => {
  const { local, foreign, cleanup } = await twoLogs();
  try {
    for (let i = 0; i < 30; i++) {
      await (i % 3 ? local : foreign).append({ kind: "config_changed", message: `pre ${i}` });
    }
    const hub = new EventHub(local, encodeSseEvents, { pollMs: 15, heartbeatMs: 60_000 });
    const live = collector(), fromZero = collector(), fromTen = collector();
    const subs = [
      await hub.subscribe(30, live.reader),
      await hub.subscribe(0, fromZero.reader),
      await hub.subscribe(10, fromTen.reader),
    ];
    const late: { from: number; c: ReturnType<typeof collector> }[] = [];
    // Bursts from both logs (the hub sees only `local` directly); readers join in between.
    for (let round = 0; round < 12; round++) {
      await Promise.all(
        Array.from(
          { length: 25 },
          (_, i) =>
            (i % 2 ? local : foreign).append({
              kind: "config_changed",
              message: `r${round} ${i}`,
            }),
        ),
      );
      if (round % 3 === 1) {
        const from = (await local.head()) - 7 * round;
        const c = collector();
        subs.push(await hub.subscribe(from, c.reader));
        late.push({ from, c });
      }
      if (round % 4 === 0) await sleep(20);
    }
    const head = await local.head();
    assert.equal(head, 30 + 12 * 25);
    const all = [
      { from: 30, c: live },
      { from: 0, c: fromZero },
      { from: 10, c: fromTen },
      ...late,
    ];
    await until(() => all.every(({ c }) => c.ids.at(-1) === head), 5000, "every reader at head");
    for (const { from, c } of all) {
      assert.deepEqual(c.ids, range(from + 1, head), `reader from ${from}`);
      // The bytes are the SSE encoding of exactly those records.
      const stored = await local.list({ afterId: from, limit: 1000 });
      assert.equal(c.text, sseEventsText(stored), `frames of reader from ${from}`);
    }
    for (const s of subs) s.close();
    assert.equal(hub.size, 0);
    assert.equal(local.listenerCount, 0);
  } finally {
    await cleanup();
  }
});

Deno.test("sse hub: live readers share one encoding per batch; concurrent first subscribers start one set of timers", async () => {
  const { local, cleanup } = await twoLogs();
  try {
    // No poll while it runs: one that read the head between a commit and its listener would hand
    // the event over by the read path, a moment after the append (the appends here are local).
    const hub = new EventHub(local, encodeSseEvents, { pollMs: 60_000, heartbeatMs: 60_000 });
    const readers = Array.from({ length: 5 }, () => collector());
    const subs = await Promise.all(readers.map((c) => hub.subscribe(0, c.reader)));
    assert.equal(local.listenerCount, 1, "one log listener for every reader");
    const rec = await local.append({ kind: "config_changed", message: "shared" });
    // Delivered in the commit itself, before the append's caller resumes.
    for (const c of readers) assert.deepEqual(c.ids, [rec.id]);
    const first = readers[0].frames[0];
    for (const c of readers) assert.equal(c.frames[0], first, "the same bytes, not a copy");
    assert.deepEqual(first, encodeSseEvents([rec]));
    assert.match(
      readers[0].text,
      /^id: 1\nevent: config_changed\ndata: \{.*"message":"shared".*\}\n\n$/,
    );
    for (const s of subs) s.close();
    assert.equal(local.listenerCount, 0);
    // The sanitizers fail this test if a second poll or heartbeat interval had been started.
  } finally {
    await cleanup();
  }
});

Deno.test("sse hub: a reader that throws is dropped without costing the others an event", async () => {
  const { local, cleanup } = await twoLogs();
  try {
    // No poll while it runs: one that read the head between a commit and its listener would hand
    // the event over by the read path, a moment after the append (the appends here are local).
    const hub = new EventHub(local, encodeSseEvents, { pollMs: 60_000, heartbeatMs: 60_000 });
    const good = collector();
    let failed: unknown;
    await hub.subscribe(0, {
      onEvents() {
        throw new Error("broken pipe");
      },
      onHeartbeat() {},
      onError(err) {
        failed = err;
      },
    });
    const sub = await hub.subscribe(0, good.reader);
    await local.append({ kind: "config_changed", message: "one" });
    await local.append({ kind: "config_changed", message: "two" });
    assert.match(String(failed), /broken pipe/);
    assert.equal(hub.size, 1, "the broken reader left the hub");
    assert.deepEqual(good.ids, [1, 2]);
    sub.close();
    assert.equal(hub.size, 0);
  } finally {
    await cleanup();
  }
});

Deno.test("sse hub: the last reader leaving mid-catch-up and a new one arriving keep the sequence", async () => {
  const { local, foreign, cleanup } = await twoLogs();
  try {
    const hub = new EventHub(local, encodeSseEvents, { pollMs: 10, heartbeatMs: 60_000 });
    for (let i = 0; i < 1200; i++) {
      void foreign.append({ kind: "config_changed", message: `f${i}` });
    }
    await foreign.drain();
    const a = collector();
    const subA = await hub.subscribe(0, a.reader);
    subA.close(); // leaves while its catch-up read is under way
    await local.append({ kind: "config_changed", message: "local" });
    const b = collector();
    const subB = await hub.subscribe(100, b.reader);
    await foreign.append({ kind: "config_changed", message: "foreign after" });
    await local.append({ kind: "config_changed", message: "local after" });
    await until(() => b.ids.at(-1) === 1203, 3000, "reader b at head");
    assert.deepEqual(b.ids, range(101, 1203));
    assert.ok(a.ids.length <= 500, "a closed reader received at most the page in flight");
    subB.close();
  } finally {
    await cleanup();
  }
});

Deno.test("event log: remembers its head (one KV read while alone), re-reads after another writer", async () => {
  const { local, foreign, kvs, cleanup } = await twoLogs();
  let gets = 0;
  const kv = kvs[0];
  const get = kv.get.bind(kv);
  kv.get = ((...args: Parameters<Deno.Kv["get"]>) => {
    gets++;
    return get(...args);
  }) as Deno.Kv["get"];
  try {
    for (let i = 0; i < 20; i++) await local.append({ kind: "config_changed", message: `a${i}` });
    assert.equal(gets, 1, "the head is read once, then remembered");
    await foreign.append({ kind: "config_changed", message: "b" });
    const next = await local.append({ kind: "config_changed", message: "a20" });
    assert.equal(next.id, 22, "continues after the other writer's id");
    assert.equal(gets, 2, "a failed check re-reads the head once");
    const ids = (await local.list({ limit: 1000 })).map((r) => r.id);
    assert.deepEqual(ids, range(1, 22));
  } finally {
    await cleanup();
  }
});

Deno.test("sse hub: overlaps are trimmed — a catch-up that reads past queued live batches, a cursor inside a batch", async () => {
  const { local, foreign, cleanup } = await twoLogs();
  try {
    const hub = new EventHub(local, encodeSseEvents, { pollMs: 150, heartbeatMs: 60_000 });
    const live = collector();
    const subs = [await hub.subscribe(0, live.reader)];
    // A backlog the hub reads through its poll.
    for (let i = 0; i < 1500; i++) {
      void foreign.append({ kind: "config_changed", message: `f${i}` });
    }
    await foreign.drain();
    await until(() => live.ids.at(-1) === 1500, 3000, "live reader at 1500");
    // A reader from 0 catches up in pages while local commits keep arriving (queued meanwhile;
    // its later pages already hold some of them).
    const resumed = collector();
    subs.push(await hub.subscribe(0, resumed.reader));
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < 200; i++) {
      writes.push(local.append({ kind: "config_changed", message: `l${i}` }));
      if (i % 20 === 19) await sleep(1);
    }
    await Promise.all(writes);
    // Foreign events the hub has not polled yet; a reader whose cursor lies inside that run.
    for (let i = 0; i < 10; i++) await foreign.append({ kind: "config_changed", message: `g${i}` });
    const head = await local.head();
    const inside = collector();
    subs.push(await hub.subscribe(head - 3, inside.reader));
    await local.append({ kind: "config_changed", message: "last" });
    const end = head + 1;
    for (const [c, from] of [[live, 0], [resumed, 0], [inside, head - 3]] as const) {
      await until(() => c.ids.at(-1) === end, 3000, `reader from ${from} at ${end}`);
      assert.deepEqual(c.ids, range(from + 1, end), `reader from ${from}`);
    }
    for (const s of subs) s.close();
  } finally {
    await cleanup();
  }
});

Deno.test("sse hub: a resuming reader gets the stored events even when nothing new is appended", async () => {
  const { local, cleanup } = await twoLogs();
  try {
    const hub = new EventHub(local, encodeSseEvents, { pollMs: 20, heartbeatMs: 60_000 });
    const first = collector();
    const subs = [await hub.subscribe(0, first.reader)];
    for (let i = 0; i < 8; i++) await local.append({ kind: "config_changed", message: `e${i}` });
    const resumed = collector();
    subs.push(await hub.subscribe(3, resumed.reader));
    await until(() => resumed.ids.length >= 5, 2000, "backlog delivered");
    await sleep(50);
    assert.deepEqual(resumed.ids, range(4, 8));
    assert.deepEqual(first.ids, range(1, 8));
    for (const s of subs) s.close();
  } finally {
    await cleanup();
  }
});
