/**
 * A client that stops reading its event stream (docs/architecture.md, "Event log and live stream"): the server holds a bounded
 * amount for it, then drops the connection and releases its subscription (the client resumes
 * with Last-Event-ID); the log and the other streams are unaffected.
 */
import assert from "node:assert/strict";
import { call, startServer } from "../support/app.ts";
import { ids, openSse } from "../support/sse.ts";
import { PROC_3 } from "../support/keys.ts";

const env = { PROCESS_API_KEYS: `ops:${PROC_3}`, RATE_LIMIT_PER_MINUTE: "0" };

Deno.test("stream: a client that stops reading is dropped after a bounded backlog; a resumed stream has every event", async () => {
  const s = await startServer(env);
  const u = new URL(s.url);
  const conn = await Deno.connect({ hostname: u.hostname, port: Number(u.port) });
  try {
    const r = await call(`${s.url}/v1/console/stream-token`, {
      method: "POST",
      headers: { "x-api-key": PROC_3 },
    });
    const { token } = r.body as { token: string };
    await conn.write(
      new TextEncoder().encode(
        `GET /v1/console/events/stream?token=${token} HTTP/1.1\r\nhost: ${u.host}\r\n\r\n`,
      ),
    );
    const log = s.bridge.ctx.events;
    const deadline = Date.now() + 2000;
    while (log.listenerCount === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(log.listenerCount, 1, "the stream subscribed");
    // ~40 MB of events to a client that reads nothing: far past socket buffers and the bound.
    const big = "x".repeat(50_000);
    for (let i = 0; i < 800 && log.listenerCount > 0; i++) {
      await log.append({ kind: "config_changed", message: `${i} ${big}` });
    }
    assert.equal(log.listenerCount, 0, "the stalled stream was dropped and unsubscribed");
    // Resuming from the start delivers every stored event once, in order.
    const head = await log.head();
    const again = await openSse(`${s.url}/v1/console/events/stream?token=${token}&after_id=0`);
    const got = await again.read((m) => ids(m).at(-1) === head, 10_000);
    await again.close();
    assert.deepEqual(ids(got), Array.from({ length: head }, (_, i) => i + 1));
  } finally {
    conn.close();
    await s.close();
  }
});
