/**
 * The console's connection truth (issue 20, item 3): the texts of a lost connection and of an
 * overdue pass, and the feed's `lostSince` across a `stream_end` message, a retry that cannot
 * reach the service, and the next live stream.
 */
import assert from "node:assert/strict";
import type { Sleep } from "../../lib/clock.ts";
import { ApiError } from "../../lib/console/api.ts";
import { connectionLostText, nextPassText } from "../../lib/console/connection.ts";
import { EventFeed } from "../../lib/console/feed.ts";
import { SSE_END } from "../../lib/http/sse.ts";

// 2026-11-24 21:14:30 Berlin (CET, UTC+1).
const T = Date.parse("2026-11-24T20:14:30Z");

Deno.test("connection texts: lost since HH:MM Berlin; next pass overdue at once when lost, else after 90 s", () => {
  assert.equal(connectionLostText(T), "connection lost since 21:14 Berlin, retrying");
  const next = "2026-11-24T20:15:00Z";
  assert.deepEqual(nextPassText(next, T, false), {
    text: "next pass 21:15 Berlin",
    overdue: false,
  });
  assert.deepEqual(nextPassText(next, T + 60_000, false).overdue, false, "30 s late is normal");
  assert.deepEqual(nextPassText(next, T + 150_000, false), {
    text: "next pass 21:15 Berlin — overdue",
    overdue: true,
  });
  assert.equal(nextPassText(next, T + 31_000, true).overdue, true, "lost: nothing newer comes");
  assert.equal(nextPassText(next, T + 29_000, true).overdue, false, "still ahead");
});

Deno.test("feed: history and live batches told apart; stream_end → reconnecting with the service's sentence and lostSince; live again clears it", async () => {
  const enc = new TextEncoder();
  let now = T;
  let reachable = true;
  const streams: WritableStreamDefaultWriter<Uint8Array>[] = [];
  const held: (() => void)[] = [];
  const sleep: Sleep = () => new Promise((release) => held.push(() => release()));
  const feed = new EventFeed({
    request: <R,>(method: string, path: string): Promise<R> => {
      if (path.startsWith("/v1/console/events?")) {
        const e = { id: 5, ts: new Date(T).toISOString(), kind: "x", level: "info", message: "m" };
        return Promise.resolve({ events: [e], next_after_id: 5 } as R);
      }
      if (method === "POST" && reachable) return Promise.resolve({ token: "t" } as R);
      return Promise.reject(new ApiError(0, "The service cannot be reached."));
    },
    fetchStream: () => {
      const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
      const w = writable.getWriter();
      streams.push(w);
      void w.write(enc.encode("retry: 3000\n\n"));
      return Promise.resolve(new Response(readable));
    },
    firstRetryMs: 5,
    sleep,
    now: () => now,
  });
  const until = async (cond: () => boolean) => {
    for (let i = 0; !cond(); i++) {
      if (i > 400) throw new Error("condition not met in time");
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  const sources: string[] = [];
  feed.subscribe((batch, source) => sources.push(`${source}:${batch.map((e) => e.id)}`));
  try {
    await feed.start();
    await until(() => feed.state.value === "live");
    assert.equal(feed.lostSince.value, null);
    // History and live batches are told apart (islands reload only for live ones).
    await streams[0].write(
      enc.encode(
        `id: 7\nevent: config_changed\ndata: ${
          JSON.stringify({
            id: 7,
            ts: new Date(T).toISOString(),
            kind: "config_changed",
            level: "info",
            message: "m",
          })
        }\n\n`,
      ),
    );
    await until(() => sources.length === 2);
    assert.deepEqual(sources, ["history:5", "live:7"]);
    reachable = false;
    await streams[0].write(SSE_END);
    await streams[0].close();
    await until(() => held.length === 1);
    assert.equal(feed.state.value, "reconnecting");
    assert.match(feed.problem.value ?? "", /The service is stopping/);
    assert.equal(feed.lostSince.value, T);
    assert.deepEqual(feed.events.value.map((e) => e.id), [5, 7], "stream_end is no event record");
    now = T + 60_000;
    held[0]();
    await until(() => held.length === 2);
    assert.equal(feed.lostSince.value, T, "a failed retry keeps the first instant");
    assert.equal(feed.problem.value, "The service cannot be reached.");
    reachable = true;
    held[1]();
    await until(() => feed.state.value === "live");
    assert.equal(feed.lostSince.value, null);
  } finally {
    feed.stop();
  }
});
