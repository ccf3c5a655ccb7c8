/**
 * Event history and live stream (docs/architecture.md, "Event log and live stream").
 */
import { HEARTBEAT_MS } from "../../lib/store/event_hub.ts";
import assert from "node:assert/strict";
import { call, startServer, type TestServer } from "../support/app.ts";
import { ids, openSse } from "../support/sse.ts";
import { PROC } from "../support/keys.ts";

const env = { PROCESS_API_KEYS: `ops:${PROC}`, RATE_LIMIT_PER_MINUTE: "0" };
const auth = { "x-api-key": PROC };

async function seed(s: TestServer, n: number) {
  await Promise.all(
    Array.from(
      { length: n },
      (_, i) => s.bridge.ctx.events.append({ kind: "config_changed", message: `seed ${i + 1}` }),
    ),
  );
}

async function streamToken(s: TestServer): Promise<string> {
  const r = await call(`${s.url}/v1/console/stream-token`, { method: "POST", headers: auth });
  assert.equal(r.status, 200);
  return (r.body as { token: string }).token;
}

Deno.test("history: newest page, paging with after_id, next_after_id", async () => {
  const s = await startServer(env);
  try {
    await seed(s, 25);
    const newest = await call(`${s.url}/v1/console/events?limit=10`, { headers: auth });
    assert.equal(newest.status, 200);
    const page = newest.body as { events: { id: number }[]; next_after_id: number };
    assert.deepEqual(page.events.map((e) => e.id), [16, 17, 18, 19, 20, 21, 22, 23, 24, 25]);
    assert.equal(page.next_after_id, 25);
    const fwd = await call(`${s.url}/v1/console/events?after_id=5&limit=3`, { headers: auth });
    const p2 = fwd.body as { events: { id: number }[]; next_after_id: number };
    assert.deepEqual(p2.events.map((e) => e.id), [6, 7, 8]);
    assert.equal(p2.next_after_id, 8);
    const end = await call(`${s.url}/v1/console/events?after_id=25`, { headers: auth });
    assert.deepEqual(end.body, { events: [], next_after_id: 25 });
    const def = await call(`${s.url}/v1/console/events`, { headers: auth });
    assert.equal((def.body as { events: unknown[] }).events.length, 25);
  } finally {
    await s.close();
  }
});

Deno.test("history: default page is the newest 100; limit 1000 is the largest", async () => {
  const s = await startServer(env);
  try {
    await seed(s, 1050);
    const def = await call(`${s.url}/v1/console/events`, { headers: auth });
    const page = def.body as { events: { id: number }[]; next_after_id: number };
    assert.deepEqual(page.events.map((e) => e.id), Array.from({ length: 100 }, (_, i) => 951 + i));
    assert.equal(page.next_after_id, 1050);
    const max = await call(`${s.url}/v1/console/events?limit=1000&after_id=0`, { headers: auth });
    const all = (max.body as { events: { id: number }[] }).events;
    assert.equal(all.length, 1000);
    assert.deepEqual([all[0].id, all[999].id], [1, 1000]);
  } finally {
    await s.close();
  }
});

Deno.test("history: bad parameters → 422 in the shape of docs/architecture.md, Errors", async () => {
  const s = await startServer(env);
  try {
    const cases: [string, string, string, unknown, Record<string, unknown>][] = [
      ["limit=0", "limit", "value_error.too_small", "0", { minimum: 1 }],
      ["limit=1001", "limit", "value_error.too_big", "1001", { maximum: 1000 }],
      [
        "limit=99999999999999999999999",
        "limit",
        "value_error.too_big",
        "99999999999999999999999",
        { maximum: 1000 },
      ],
      ["limit=abc", "limit", "type_error", "abc", { expected: "integer" }],
      ["limit=1.5", "limit", "type_error", "1.5", { expected: "integer" }],
      ["limit=", "limit", "type_error", "", { expected: "integer" }],
      ["after_id=-1", "after_id", "value_error.too_small", "-1", { minimum: 0 }],
      ["after_id=0x10", "after_id", "type_error", "0x10", { expected: "integer" }],
      ["after_id=1e3", "after_id", "type_error", "1e3", { expected: "integer" }],
      ["bogus=1", "bogus", "extra_forbidden", null, {}], // named, its value not quoted
    ];
    for (const [qs, field, type, input, ctx] of cases) {
      const r = await call(`${s.url}/v1/console/events?${qs}`, { headers: auth });
      assert.equal(r.status, 422, qs);
      const items = (r.body as { detail: Record<string, unknown>[] }).detail;
      assert.equal(items.length, 1, `${qs}: ${JSON.stringify(items)}`);
      const [item] = items;
      assert.deepEqual(item.loc, ["query", field], qs);
      assert.equal(item.type, type, qs);
      assert.equal(item.input, input, qs);
      assert.deepEqual(item.ctx, ctx, qs);
      assert.match(String(item.msg), /whole number|between|unknown field/, qs);
    }
    // The stream validates its resume point the same way, naming where it came from.
    const token = await streamToken(s);
    const badHeader = await call(`${s.url}/v1/console/events/stream?token=${token}`, {
      headers: { "last-event-id": "abc" },
    });
    assert.equal(badHeader.status, 422);
    assert.deepEqual(
      (badHeader.body as { detail: { loc: unknown[] }[] }).detail.map((i) => i.loc),
      [["header", "last-event-id"]],
    );
    const badQuery = await call(`${s.url}/v1/console/events/stream?token=${token}&after_id=-1`);
    assert.equal(badQuery.status, 422);
    assert.deepEqual(
      (badQuery.body as { detail: { loc: unknown[] }[] }).detail.map((i) => i.loc),
      [["query", "after_id"]],
    );
  } finally {
    await s.close();
  }
});

Deno.test("stream: refuses API keys, bearer headers, tampered and cross-route tokens", async () => {
  const s = await startServer(env);
  try {
    const token = await streamToken(s);
    const noToken = await openSse(`${s.url}/v1/console/events/stream`, auth);
    assert.equal(noToken.status, 401);
    const keyAsToken = await openSse(`${s.url}/v1/console/events/stream?token=${PROC}`);
    assert.equal(keyAsToken.status, 401);
    // Two characters of the signature changed, never to what they were (a token may end in "AA").
    const tail = token.endsWith("AA") ? "BB" : "AA";
    const tampered = await openSse(
      `${s.url}/v1/console/events/stream?token=${token.slice(0, -2)}${tail}`,
    );
    assert.equal(tampered.status, 401);
    const nonAscii = await openSse(
      `${s.url}/v1/console/events/stream?token=${encodeURIComponent("tök")}`,
    );
    assert.equal(nonAscii.status, 401);
    // The stream token is no credential anywhere else.
    const tries: Record<string, string>[] = [{ "x-api-key": token }, {
      authorization: `Bearer ${token}`,
    }];
    for (const h of tries) {
      const other = await call(`${s.url}/v1/console/status?token=${token}`, { headers: h });
      assert.equal(other.status, 401);
    }
  } finally {
    await s.close();
  }
});

Deno.test("stream: live events, then resume with Last-Event-ID and after_id without gap or duplicate", async () => {
  const s = await startServer(env);
  try {
    await seed(s, 3);
    const token = await streamToken(s);
    const live = await openSse(`${s.url}/v1/console/events/stream?token=${token}`);
    assert.equal(live.status, 200);
    const first = await live.read((m) => m.some((x) => x.retry !== undefined), 2000);
    assert.equal(first[0].retry, 3000);
    await seed(s, 5); // ids 4..8
    const got = await live.read((m) => ids(m).length >= 5, 2000);
    assert.deepEqual(ids(got), [4, 5, 6, 7, 8]);
    assert.equal(got.find((m) => m.id === "4")?.event, "config_changed");
    assert.equal(JSON.parse(got.find((m) => m.id === "4")!.data!).message, "seed 1");
    await live.close();
    await seed(s, 4); // ids 9..12 arrive while disconnected
    for (
      const [url, headers] of [
        [`${s.url}/v1/console/events/stream?token=${token}`, { "last-event-id": "6" }],
        [`${s.url}/v1/console/events/stream?token=${token}&after_id=6`, {}],
      ] as [string, Record<string, string>][]
    ) {
      const again = await openSse(url, headers);
      const rest = await again.read((m) => ids(m).length >= 6, 2000);
      await again.close();
      assert.deepEqual(ids(rest), [7, 8, 9, 10, 11, 12]);
    }
  } finally {
    await s.close();
  }
});

/** Runs tests/support/append_events.ts in a separate Deno process on the same KV file. */
function appendInAnotherProcess(kvPath: string, count: number, label: string) {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "tests/support/append_events.ts", kvPath, String(count), label],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
}

Deno.test("stream: two processes append 1,000 each → a third streams all 2,000 in order", async () => {
  const s = await startServer(env);
  try {
    const token = await streamToken(s);
    const stream = await openSse(`${s.url}/v1/console/events/stream?token=${token}&after_id=0`);
    const [a, b] = await Promise.all([
      appendInAnotherProcess(s.kvPath, 1000, "A"),
      appendInAnotherProcess(s.kvPath, 1000, "B"),
    ]);
    assert.equal(a.code, 0);
    assert.equal(b.code, 0);
    const got = await stream.read((m) => ids(m).length >= 2000, 15_000);
    await stream.close();
    const seen = ids(got);
    assert.equal(seen.length, 2000);
    assert.deepEqual(seen, Array.from({ length: 2000 }, (_, i) => i + 1));
    // Every append of each process exactly once: none missing, none doubled.
    const appended = got.filter((m) => m.data).map((m) => {
      const d = JSON.parse(m.data!).data as { label: string; i: number };
      return `${d.label}${d.i}`;
    });
    const want = ["A", "B"].flatMap((l) => Array.from({ length: 1000 }, (_, i) => `${l}${i}`));
    assert.deepEqual([...appended].sort(), want.sort());
    // The log itself: 2,000 records under strictly increasing keys, the head on the last.
    const stored: number[] = [];
    for await (const e of s.kv.list<{ id: number }>({ prefix: ["events"] })) {
      assert.equal(e.key[1], e.value.id);
      stored.push(e.value.id);
    }
    assert.deepEqual(stored, Array.from({ length: 2000 }, (_, i) => i + 1));
    assert.equal((await s.kv.get(["events_head"])).value, 2000);
  } finally {
    await s.close();
  }
});

Deno.test("stream: an event appended by another process arrives within 2 s", async () => {
  const s = await startServer(env);
  try {
    const token = await streamToken(s);
    const stream = await openSse(`${s.url}/v1/console/events/stream?token=${token}`);
    await stream.read((m) => m.some((x) => x.retry !== undefined), 2000);
    const out = await appendInAnotherProcess(s.kvPath, 1, "remote");
    assert.equal(out.code, 0);
    const written = performance.now(); // the event is durable once that process exited
    const got = await stream.read((m) => ids(m).length >= 1, 2000);
    const latency = performance.now() - written;
    await stream.close();
    assert.equal(ids(got).length, 1, "the event arrived");
    assert.equal(JSON.parse(got.find((m) => m.data)!.data!).data.label, "remote");
    assert.ok(latency < 2000, `arrived after ${Math.round(latency)} ms`);
  } finally {
    await s.close();
  }
});

Deno.test("stream: a client that leaves releases its subscription", async () => {
  const s = await startServer(env);
  try {
    const token = await streamToken(s);
    const log = s.bridge.ctx.events;
    assert.equal(log.listenerCount, 0);
    const a = await openSse(`${s.url}/v1/console/events/stream?token=${token}`);
    const b = await openSse(`${s.url}/v1/console/events/stream?token=${token}`);
    await a.read((m) => m.length > 0, 2000);
    await b.read((m) => m.length > 0, 2000);
    assert.equal(log.listenerCount, 1, "one hub subscription serves every stream");
    await a.close();
    await seed(s, 1); // still delivered to b
    assert.deepEqual(ids(await b.read((m) => ids(m).length >= 1, 2000)), [1]);
    await b.close();
    const deadline = Date.now() + 2000;
    while (log.listenerCount > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(log.listenerCount, 0, "the last reader left: no timer, watcher or listener");
  } finally {
    await s.close();
  }
});

Deno.test({
  name: "stream: a heartbeat comment every period (15 s by default), no sooner",
  async fn() {
    // The period is the app's option; the test runs it at 1.5 s instead of waiting 15 s.
    assert.equal(HEARTBEAT_MS, 15_000);
    const s = await startServer(env, { heartbeatMs: 1_500 });
    try {
      const token = await streamToken(s);
      const stream = await openSse(`${s.url}/v1/console/events/stream?token=${token}`);
      const opened = performance.now();
      const early = await stream.read((m) => m.some((x) => x.comment === "heartbeat"), 1_400);
      assert.ok(!early.some((x) => x.comment === "heartbeat"), "heartbeat before 1.4 s");
      const got = await stream.read((m) => m.some((x) => x.comment === "heartbeat"), 1_500);
      const at = performance.now() - opened;
      await stream.close();
      assert.ok(got.some((x) => x.comment === "heartbeat"), "no heartbeat within 2.9 s");
      assert.ok(at >= 1_400 && at <= 2_900, `heartbeat after ${Math.round(at)} ms`);
    } finally {
      await s.close();
    }
  },
});
