/**
 * The console's live feed (docs/architecture.md, "Console"; docs/access-control.md, "Stream tokens"): SSE parsing, history then live, a fresh
 * stream token and `after_id` on every reconnect, no gap and no duplicate, refusals stop the
 * retries. Fakes for the unit cases (reconnect waits on a FakeClock or held by the test, never in
 * real time); the real service for the last one.
 */
import assert from "node:assert/strict";
import { FakeClock, type Sleep } from "../../lib/clock.ts";
import { ApiError, apiRequest } from "../../lib/console/api.ts";
import { EventFeed } from "../../lib/console/feed.ts";
import { SseParser } from "../../lib/console/sse.ts";
import type { EventRecord } from "../../lib/console/types.ts";
import { startServer } from "../support/app.ts";

Deno.test("SseParser: LF/CRLF/CR, split chunks, multi-line data, comments, retry, sticky id", () => {
  const p = new SseParser();
  assert.deepEqual(p.push("retry: 3000\n\n"), [{ event: "message", data: "", retry: 3000 }]);
  assert.deepEqual(p.push(": heartbeat\n\n"), []);
  assert.equal(p.takeComment(), true);
  assert.deepEqual(p.push("id: 1\nevent: api_call\nda"), []);
  assert.deepEqual(p.push('ta: {"a":1}\r'), []);
  assert.deepEqual(p.push("\n\r\n"), [{ id: "1", event: "api_call", data: '{"a":1}' }]);
  // A CR at the end of a chunk may be half of a CRLF: the line ends when the next chunk comes.
  assert.deepEqual(p.push("data: x\rdata:y\r\r"), []);
  assert.deepEqual(p.push("\n"), [{ id: "1", event: "message", data: "x\ny" }]);
  assert.deepEqual(p.push("data\n\n"), [{ id: "1", event: "message", data: "" }]);
});

const rec = (id: number): EventRecord => ({
  id,
  ts: new Date(1_700_000_000_000 + id * 1000).toISOString(),
  kind: "config_changed",
  level: "info",
  message: `event ${id}`,
});
const sse = (...ids: number[]) =>
  ids.map((id) => `id: ${id}\nevent: config_changed\ndata: ${JSON.stringify(rec(id))}\n\n`).join(
    "",
  );

/** A fake service: a history page, numbered tokens, streams the test writes to. */
function fakeService(history: number[]) {
  const tokens: string[] = [];
  const urls: string[] = [];
  const streams: WritableStreamDefaultWriter<Uint8Array>[] = [];
  const answers: (number | "ok")[] = []; // per stream: a status, or "ok"
  let tokenError: ApiError | null = null;
  const enc = new TextEncoder();
  // Reconnect waits: recorded, and spent on a fake clock.
  const clock = new FakeClock(0);
  const waits: number[] = [];
  const sleep: Sleep = (ms) => {
    waits.push(ms);
    return clock.sleep(ms);
  };
  const request = <T,>(method: string, path: string): Promise<T> => {
    if (method === "GET" && path.startsWith("/v1/console/events?")) {
      return Promise.resolve({
        events: history.map(rec),
        next_after_id: history.at(-1) ?? 0,
      } as T);
    }
    if (method === "POST" && path === "/v1/console/stream-token") {
      if (tokenError) return Promise.reject(tokenError);
      tokens.push(`t${tokens.length + 1}`);
      return Promise.resolve({ token: tokens.at(-1), expires_in: 300 } as T);
    }
    return Promise.reject(new Error(`unexpected ${method} ${path}`));
  };
  const fetchStream = (url: string, signal: AbortSignal) => {
    urls.push(url);
    const answer = answers.shift() ?? "ok";
    if (answer !== "ok") return Promise.resolve(new Response("{}", { status: answer }));
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const w = writable.getWriter();
    signal.addEventListener("abort", () => w.abort().catch(() => {}));
    streams.push(w);
    void w.write(enc.encode("retry: 40\n\n"));
    return Promise.resolve(new Response(readable, { status: 200 }));
  };
  return {
    tokens,
    urls,
    answers,
    waits,
    refuseTokens(err: ApiError | null) {
      tokenError = err;
    },
    send: (i: number, text: string) => streams[i].write(enc.encode(text)),
    drop: (i: number) => streams[i].close(),
    streams,
    deps: { request, fetchStream, firstRetryMs: 5, sleep },
  };
}

async function until(cond: () => boolean, ms = 2000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 5));
  }
}
const ids = (f: EventFeed) => f.events.value.map((e) => e.id);

Deno.test("feed: history, then live after the last id; duplicates dropped", async () => {
  const svc = fakeService([1, 2, 3]);
  const feed = new EventFeed(svc.deps);
  const batches: number[][] = [];
  feed.subscribe((b) => batches.push(b.map((e) => e.id)));
  try {
    await feed.start();
    await until(() => feed.state.value === "live");
    assert.deepEqual(ids(feed), [1, 2, 3]);
    assert.equal(svc.urls[0], "/v1/console/events/stream?token=t1&after_id=3");
    await svc.send(0, sse(3, 4) + sse(4, 5));
    await until(() => ids(feed).length === 5);
    assert.deepEqual(ids(feed), [1, 2, 3, 4, 5]);
    assert.deepEqual(batches, [[1, 2, 3], [4, 5]]);
  } finally {
    feed.stop();
  }
});

Deno.test("feed: event_updated replaces the record held (a repeated failure's count); the resume point stays", async () => {
  const svc = fakeService([1, 2]);
  const feed = new EventFeed(svc.deps);
  try {
    await feed.start();
    await until(() => feed.state.value === "live");
    const counted = { ...rec(1), message: "event 1 — again 3 times since 10:02 Berlin" };
    await svc.send(0, `event: event_updated\ndata: ${JSON.stringify(counted)}\n\n` + sse(3));
    await until(() => feed.lastId === 3);
    assert.deepEqual(ids(feed), [1, 2, 3]);
    assert.equal(feed.events.value[0].message, "event 1 — again 3 times since 10:02 Berlin");
  } finally {
    feed.stop();
  }
});

Deno.test("feed: a dropped stream resumes with a new token and after_id, no gap, no duplicate", async () => {
  const svc = fakeService([1]);
  const feed = new EventFeed(svc.deps);
  try {
    await feed.start();
    await until(() => feed.state.value === "live");
    await svc.send(0, sse(2));
    await until(() => feed.lastId === 2);
    await svc.drop(0);
    await until(() => svc.streams.length === 2 && feed.state.value === "live");
    assert.deepEqual(svc.tokens, ["t1", "t2"]);
    assert.equal(svc.urls[1], "/v1/console/events/stream?token=t2&after_id=2");
    await svc.send(1, sse(2, 3));
    await until(() => feed.lastId === 3);
    assert.deepEqual(ids(feed), [1, 2, 3]);
  } finally {
    feed.stop();
  }
});

Deno.test("feed: an expired token (401 on the stream) is replaced by a fresh one", async () => {
  const svc = fakeService([]);
  svc.answers.push(401);
  const feed = new EventFeed(svc.deps);
  try {
    await feed.start();
    await until(() => feed.state.value === "live");
    assert.deepEqual(svc.tokens, ["t1", "t2"]);
    assert.deepEqual(svc.urls, [
      "/v1/console/events/stream?token=t1&after_id=0",
      "/v1/console/events/stream?token=t2&after_id=0",
    ]);
  } finally {
    feed.stop();
  }
});

Deno.test("feed: a refused key stops the feed with the service's sentence", async () => {
  const svc = fakeService([]);
  svc.refuseTokens(new ApiError(503, "Authentication is not configured."));
  const feed = new EventFeed(svc.deps);
  try {
    await feed.start();
    assert.equal(feed.state.value, "refused");
    assert.equal(feed.problem.value, "Authentication is not configured.");
    assert.deepEqual(svc.waits, [], "no reconnect scheduled");
    assert.equal(svc.urls.length, 0, "no stream attempted");
  } finally {
    feed.stop();
  }
});

Deno.test("feed: a silent stream is replaced; stop() cancels pending reconnects", async () => {
  const svc = fakeService([]);
  // Reconnect waits the test releases by hand (the idle watchdog stays real: 60 ms of silence).
  const held: { ms: number; signal?: AbortSignal; release: () => void }[] = [];
  const sleep: Sleep = (ms, signal) =>
    new Promise((release) => held.push({ ms, signal, release: () => release() }));
  const feed = new EventFeed({ ...svc.deps, idleTimeoutMs: 60, sleep });
  await feed.start();
  await until(() => held.length === 1);
  assert.equal(svc.streams.length, 1);
  assert.equal(feed.state.value, "reconnecting", "the silent stream was dropped");
  assert.equal(held[0].ms, 5, "the first reconnect waits firstRetryMs");
  held[0].release();
  await until(() => svc.streams.length === 2 && feed.state.value === "live");
  await until(() => held.length === 2); // silent again: the next reconnect is pending
  feed.stop();
  assert.equal(held[1].signal?.aborted, true, "stop() aborted the pending wait");
  held[1].release(); // a wait that ends anyway connects nothing
  for (let i = 0; i < 20; i++) await Promise.resolve();
  assert.equal(svc.urls.length, 2);
  assert.equal(feed.state.value, "idle");
});

Deno.test("feed against the service: live events, then a cut connection resumes without gap", async () => {
  const KEY = "proc-secret-feed-0001-aaaaaa";
  const s = await startServer({ PROCESS_API_KEYS: `ops:${KEY}`, RATE_LIMIT_PER_MINUTE: "0" });
  let current: AbortController | undefined;
  const put = (port: number) =>
    apiRequest(KEY, "PUT", `${s.url}/v1/console/config`, { sftp_port: port });
  const feed = new EventFeed({
    request: (m, p) => apiRequest(KEY, m, `${s.url}${p}`),
    fetchStream: (u, signal) => {
      const ac = new AbortController();
      signal.addEventListener("abort", () => ac.abort());
      current = ac;
      return fetch(`${s.url}${u}`, { signal: ac.signal });
    },
    firstRetryMs: 10,
  });
  try {
    await put(2201);
    await feed.start();
    await until(() => feed.state.value === "live");
    assert.deepEqual(ids(feed), [1, 2]); // config_changed + api_call
    await put(2202);
    await until(() => feed.lastId === 4);
    current!.abort(); // the network drops
    await put(2203);
    await put(2204);
    await until(() => feed.lastId === 8, 5000);
    assert.deepEqual(ids(feed), [1, 2, 3, 4, 5, 6, 7, 8]);
    assert.ok(feed.connections >= 2);
  } finally {
    feed.stop();
    await s.close();
  }
});
