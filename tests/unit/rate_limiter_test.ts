/**
 * The rate limiter's token buckets (docs/access-control.md, "Request path"; lib/http/rate_limiter.ts)
 * on a FakeClock: a burst passes at once, the next request is refused with a whole number of
 * seconds to wait, tokens come back at the sustained rate, and each key has its own bucket.
 */
import assert from "node:assert/strict";
import { FakeClock } from "../../lib/clock.ts";
import { type TakeResult, TokenBuckets } from "../../lib/http/rate_limiter.ts";

const T0 = Date.parse("2026-11-22T10:00:00Z");

/** Takes `n` tokens for `key`; returns the outcomes. */
const takeN = (b: TokenBuckets, key: string, n: number): TakeResult[] =>
  Array.from({ length: n }, () => b.take(key));

Deno.test("rate limit: a burst passes at once; the request after it waits for one token", () => {
  const clock = new FakeClock(T0);
  const b = new TokenBuckets(60, 5, clock); // one token a second, five at once
  assert.deepEqual(takeN(b, "acme", 5), Array(5).fill({ ok: true }));
  assert.deepEqual(b.take("acme"), { ok: false, retryAfterSeconds: 1 });
  // A refused request takes nothing: still one second to wait.
  assert.deepEqual(b.take("acme"), { ok: false, retryAfterSeconds: 1 });
});

Deno.test("rate limit: tokens come back at perMinute / 60 a second, never beyond the burst", () => {
  const clock = new FakeClock(T0);
  const b = new TokenBuckets(6, 2, clock); // one token every 10 s
  assert.deepEqual(takeN(b, "acme", 3).map((r) => r.ok), [true, true, false]);
  clock.advance(9_999);
  assert.equal(b.take("acme").ok, false, "not yet a whole token");
  clock.advance(1);
  assert.deepEqual(b.take("acme"), { ok: true });
  assert.equal(b.take("acme").ok, false);
  // An hour idle refills the bucket to the burst, not to 360 tokens.
  clock.advance(3_600_000);
  assert.deepEqual(takeN(b, "acme", 3).map((r) => r.ok), [true, true, false]);
});

Deno.test("rate limit: Retry-After is the whole seconds until the next token, rounded up, at least 1", () => {
  const clock = new FakeClock(T0);
  const b = new TokenBuckets(6, 1, clock); // one token every 10 s
  assert.equal(b.take("acme").ok, true);
  const waits: number[] = [];
  for (const step of [0, 4_000, 600, 4_900, 400]) {
    clock.advance(step);
    const r = b.take("acme");
    assert.equal(r.ok, false);
    if (!r.ok) waits.push(r.retryAfterSeconds);
  }
  // 10 s, 6 s, 5.4 s → 6, 0.5 s → 1, 0.1 s → 1.
  assert.deepEqual(waits, [10, 6, 6, 1, 1]);
  assert.ok(waits.every(Number.isInteger));
  // A fast rate still asks for at least one second.
  const fast = new TokenBuckets(6_000, 1, clock); // a token every 10 ms
  fast.take("acme");
  assert.deepEqual(fast.take("acme"), { ok: false, retryAfterSeconds: 1 });
});

Deno.test("rate limit: every key has its own bucket", () => {
  const clock = new FakeClock(T0);
  const b = new TokenBuckets(60, 2, clock);
  assert.deepEqual(takeN(b, "acme", 3).map((r) => r.ok), [true, true, false]);
  assert.deepEqual(takeN(b, "ops", 2).map((r) => r.ok), [true, true], "another caller unaffected");
  assert.equal(b.take("acme").ok, false);
});

Deno.test("rate limit: perMinute 0 disables the limit", () => {
  const b = new TokenBuckets(0, 1, new FakeClock(T0));
  assert.equal(b.enabled, false);
  assert.ok(takeN(b, "acme", 1_000).every((r) => r.ok));
  assert.equal(new TokenBuckets(60, 1, new FakeClock(T0)).enabled, true);
});
