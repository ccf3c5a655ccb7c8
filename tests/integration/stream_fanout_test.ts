/**
 * Many live streams at once (docs/architecture.md, "Event log and live stream"): while this process and another one append,
 * streams opened live, from the start, from `after_id` and from `Last-Event-ID` each receive every
 * event exactly once, in id order, with the record as stored (secrets masked); all of them leave
 * the hub when they close.
 */
import assert from "node:assert/strict";
import { call, startServer } from "../support/app.ts";
import { ids, openSse, type SseReader } from "../support/sse.ts";
import { PROC_2 } from "../support/keys.ts";

const env = { PROCESS_API_KEYS: `ops:${PROC_2}`, RATE_LIMIT_PER_MINUTE: "0" };

Deno.test("stream fan-out: 24 streams at different cursors, local and cross-process appends → each id once, in order", async () => {
  const s = await startServer(env);
  try {
    const log = s.bridge.ctx.events;
    for (let i = 0; i < 20; i++) await log.append({ kind: "config_changed", message: `pre ${i}` });
    const r = await call(`${s.url}/v1/console/stream-token`, {
      method: "POST",
      headers: { "x-api-key": PROC_2 },
    });
    const { token } = r.body as { token: string };
    const url = `${s.url}/v1/console/events/stream?token=${token}`;
    const streams: { from: number; sse: SseReader }[] = [];
    const open = async (from: number, how: "live" | "query" | "header") => {
      const sse = how === "live"
        ? await openSse(url)
        : how === "query"
        ? await openSse(`${url}&after_id=${from}`)
        : await openSse(url, { "last-event-id": String(from) });
      assert.equal(sse.status, 200);
      await sse.read((m) => m.some((x) => x.retry === 3000), 2000);
      streams.push({ from, sse });
    };
    for (let i = 0; i < 8; i++) await open(20, "live");
    for (let i = 0; i < 8; i++) await open(i * 2, i % 2 ? "query" : "header");
    const other = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "tests/support/append_events.ts", s.kvPath, "300", "X"],
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    for (let i = 0; i < 300; i++) {
      // A secret quoted in a message is masked before it is stored and streamed.
      void log.append({ kind: "config_changed", message: `local ${i} key=${PROC_2}` });
      if (i % 30 === 29) {
        await new Promise((r) => setTimeout(r, 5));
        await open(10 + i, "query"); // joins while both processes append
      }
    }
    assert.equal((await other).code, 0);
    await log.drain();
    const head = await log.head();
    assert.equal(head, 620);
    for (const { from, sse } of streams) {
      const got = await sse.read((m) => ids(m).at(-1) === head, 10_000);
      assert.deepEqual(
        ids(got),
        Array.from({ length: head - from }, (_, i) => from + 1 + i),
        `stream from ${from}`,
      );
      for (const m of got.filter((x) => x.data)) {
        assert.ok(!m.data!.includes(PROC_2), "secret streamed");
        assert.equal(JSON.parse(m.data!).id, Number(m.id));
      }
    }
    await Promise.all(streams.map(({ sse }) => sse.close()));
    const deadline = Date.now() + 2000;
    while (log.listenerCount > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(log.listenerCount, 0, "every stream left the hub");
  } finally {
    await s.close();
  }
});
