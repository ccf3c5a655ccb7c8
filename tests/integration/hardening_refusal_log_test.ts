/**
 * A refusal log that cannot be flooded (docs/access-control.md, "Audit events"): at most 10
 * stored `access_denied` events a minute per client address and per caller, then one summary
 * event a minute with the count; a path in an event is cut to 200 characters.
 *
 * Real parts: the app on a temp-file KV; requests through its fetch handler with Deno.serve's
 * handler info, so that each comes from a chosen client address; the injected clock.
 */
import assert from "node:assert/strict";
import { FakeClock } from "../../lib/clock.ts";
import { startServer, storedEvents, type TestServer } from "../support/app.ts";
import { EXT, PROC } from "../support/pipeline.ts";

const env = { PROCESS_API_KEYS: `ops:${PROC}`, EXTERNAL_API_KEYS: `acme:${EXT}` };

/** One request from `hostname`; the status. */
async function from(s: TestServer, hostname: string, path: string, key: string) {
  const res = await s.bridge.fetch(
    new Request(`http://bridge.test${path}`, { method: "POST", headers: { "x-api-key": key } }),
    {
      remoteAddr: { transport: "tcp", hostname, port: 40000 },
      completed: Promise.resolve(),
    } as Deno.ServeHandlerInfo<Deno.NetAddr>,
  );
  await res.body?.cancel();
  return res.status;
}

const denied = async (s: TestServer) =>
  (await storedEvents(s.kv)).filter((e) => e.kind === "access_denied");

Deno.test("300 refused requests with a 4 KB path write at most 20 events; a summary keeps the count", async () => {
  const clock = new FakeClock(Date.parse("2026-11-23T10:00:00Z"));
  const s = await startServer(env, { clock });
  try {
    const path = `/v1/delivery-days/${"x".repeat(4096)}/submit`;
    const statuses = new Set<number>();
    for (let i = 0; i < 300; i++) {
      statuses.add(await from(s, "192.0.2.7", path, "wrong-key-xxxxxx"));
    }
    assert.deepEqual([...statuses].sort(), [401, 429], "refused, then rate-limited");
    const first = await denied(s);
    assert.equal(first.length, 10, "ten refusals stored in the first minute");
    for (const e of first) {
      assert.ok(String(e.path).length <= 200, `stored path of ${String(e.path).length} chars`);
      assert.ok(String(e.message).length < 300, `message of ${String(e.message).length} chars`);
    }
    // A minute later the next refusal from that address first writes the summary of the last.
    clock.advance(61_000);
    await from(s, "192.0.2.7", "/v1/delivery-days/2026-11-24/submit", "wrong-key-xxxxxx");
    const all = await denied(s);
    assert.ok(all.length <= 20, `${all.length} events`);
    const summary = all.find((e) => (e.data as { suppressed?: number })?.suppressed);
    assert.ok(summary, "a summary event");
    assert.match(
      String(summary.message),
      /… and 290 more refusals from 192\.0\.2\.7 in the last minute/,
    );
    assert.equal((summary.data as { suppressed: number }).suppressed, 290);
    // Another address is not held back by the first one's flood.
    assert.equal(await from(s, "192.0.2.8", "/v1/orchestrate", "wrong-key-yyyyyy"), 401);
    assert.equal((await denied(s)).length, all.length + 1);
  } finally {
    await s.close();
  }
});

Deno.test("a caller refused 300 times (403, valid key, wrong scope): 10 events and one summary", async () => {
  const clock = new FakeClock(Date.parse("2026-11-23T10:00:00Z"));
  const s = await startServer({ ...env, RATE_LIMIT_PER_MINUTE: "0" }, { clock });
  try {
    for (let i = 0; i < 300; i++) {
      // From many addresses: the caller's own limit holds the log.
      assert.equal(await from(s, `198.51.100.${i % 200}`, "/v1/orchestrate", EXT), 403);
    }
    assert.equal((await denied(s)).length, 10);
    // The app's close writes the summary of the minute that is still open.
    await s.bridge.close();
    const all = await denied(s);
    assert.equal(all.length, 11);
    assert.match(
      String(all[10].message),
      /… and 290 more refusals of caller "acme" in the last minute/,
    );
  } finally {
    await s.close();
  }
});
