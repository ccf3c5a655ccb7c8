/**
 * The one retry helper (lib/retry.ts) and the KV retry on it, without KV or HTTP: every wait is
 * spent on a FakeClock (or recorded by an injected sleep), so nothing here waits in real time —
 * the backoffs below add up to seconds and minutes of fake time.
 */
import assert from "node:assert/strict";
import { FakeClock } from "../../lib/clock.ts";
import { backoffMs, retry, RetryGaveUp } from "../../lib/retry.ts";
import { isLockedError, KvContentionError, retryKv } from "../../lib/store/kv.ts";

const T0 = Date.parse("2026-11-22T10:00:00Z");

/** An attempt that always fails with a retriable error, counting its calls. */
function failing() {
  const calls: { attempt: number; at: number; remainingMs: number }[] = [];
  return {
    calls,
    op: (clock: FakeClock) =>
    (
      { attempt, remainingMs }: { attempt: number; remainingMs: number },
    ) => {
      calls.push({ attempt, at: clock.now() - T0, remainingMs });
      return Promise.reject(new Error(`busy #${attempt}`));
    },
  };
}
const retryAll = () => true;

/** Runs `fn` and says how long it took in real time, ms. */
async function realMs(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

Deno.test("retry: stops after `attempts`; the waits double on the fake clock, none in real time", async () => {
  const clock = new FakeClock(T0);
  const f = failing();
  let err: unknown;
  const elapsed = await realMs(async () => {
    err = await retry(f.op(clock), {
      attempts: 4,
      baseMs: 1_000,
      maxMs: 60_000,
      retryOn: retryAll,
      clock,
    }).catch((e) => e);
  });
  assert.ok(err instanceof RetryGaveUp);
  assert.equal(err.attempts, 4);
  assert.equal(err.bound, "attempts");
  assert.equal((err.lastError as Error).message, "busy #4");
  assert.equal(err.message, "gave up after 4 attempts (attempts)");
  assert.deepEqual(f.calls.map((c) => c.at), [0, 1_000, 3_000, 7_000], "no wait after the last");
  assert.equal(clock.now() - T0, 7_000);
  assert.ok(elapsed < 1_000, `7 s of backoff took ${elapsed} ms of real time`);
});

Deno.test("retry: a deadline on the clock — no attempt at or after it, no wait that would reach it", async () => {
  const clock = new FakeClock(T0);
  const f = failing();
  const err = await retry(f.op(clock), {
    deadlineMs: 10_000,
    baseMs: 1_000,
    maxMs: 60_000,
    retryOn: retryAll,
    clock,
  }).catch((e) => e);
  assert.ok(err instanceof RetryGaveUp);
  assert.equal(err.bound, "deadline");
  // Attempts at 0, 1, 3 and 7 s; the next wait (8 s) would end past 10 s, so it is not begun.
  assert.deepEqual(f.calls, [
    { attempt: 1, at: 0, remainingMs: 10_000 },
    { attempt: 2, at: 1_000, remainingMs: 9_000 },
    { attempt: 3, at: 3_000, remainingMs: 7_000 },
    { attempt: 4, at: 7_000, remainingMs: 3_000 },
  ]);
  assert.equal(err.attempts, 4);
  assert.equal(clock.now() - T0, 7_000);
});

Deno.test("retry: an attempt that runs past the deadline is the last one", async () => {
  const clock = new FakeClock(T0);
  let calls = 0;
  const err = await retry(() => {
    calls++;
    clock.advance(600); // the attempt itself takes 600 ms on the clock
    return Promise.reject(new Error("slow"));
  }, { deadlineMs: 1_000, baseMs: 100, maxMs: 100, retryOn: retryAll, clock }).catch((e) => e);
  // 0 → 600, wait 100 → 700, second attempt → 1,300: past the deadline, nothing more.
  assert.ok(err instanceof RetryGaveUp);
  assert.equal(calls, 2);
  assert.equal(clock.now() - T0, 1_300);
});

Deno.test("retry: backoff grows ×2 up to the cap; jitter stays within ±jitter", async () => {
  const waits: number[] = [];
  const err = await retry(() => Promise.reject(new Error("x")), {
    attempts: 7,
    baseMs: 10,
    maxMs: 50,
    retryOn: retryAll,
    sleep: (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
  }).catch((e) => e);
  assert.ok(err instanceof RetryGaveUp);
  assert.deepEqual(waits, [10, 20, 40, 50, 50, 50]);

  const b = { baseMs: 500, maxMs: 8_000, jitter: 0.25 };
  assert.equal(backoffMs(1, b, () => 0), 375, "×0.75 at the low end");
  assert.equal(backoffMs(1, b, () => 0.5), 500);
  assert.ok(backoffMs(1, b, () => 0.999_999) < 625, "below ×1.25");
  assert.equal(backoffMs(5, b, () => 0.5), 8_000, "500·2⁴ = 8,000: at the cap");
  assert.equal(backoffMs(6, b, () => 0), 6_000, "the cap, then the jitter");
  assert.equal(backoffMs(2000, { baseMs: 1, maxMs: 50 }), 50, "no overflow past the cap");
});

Deno.test("retry: a hard stop earlier than the deadline ends it; a stop already passed allows no attempt", async () => {
  const clock = new FakeClock(T0);
  const f = failing();
  const err = await retry(f.op(clock), {
    deadlineMs: 30_000,
    stopAtMs: T0 + 1_500, // e.g. gate closure
    baseMs: 200,
    maxMs: 8_000,
    retryOn: retryAll,
    clock,
  }).catch((e) => e);
  assert.ok(err instanceof RetryGaveUp);
  assert.equal(err.bound, "stop");
  assert.deepEqual(f.calls.map((c) => [c.at, c.remainingMs]), [
    [0, 1_500],
    [200, 1_300],
    [600, 900],
    [1_400, 100],
  ]);
  assert.ok(clock.now() < T0 + 1_500, "no wait reached the stop");

  const none = failing();
  const late = await retry(none.op(clock), {
    stopAtMs: clock.now() - 1,
    baseMs: 1,
    maxMs: 1,
    retryOn: retryAll,
    clock,
  }).catch((e) => e);
  assert.ok(late instanceof RetryGaveUp);
  assert.deepEqual([late.attempts, late.bound, late.lastError], [0, "stop", undefined]);
  assert.equal(none.calls.length, 0);
});

Deno.test("retry: a deadline earlier than the stop ends it and is named; a later stop does not extend it", async () => {
  const clock = new FakeClock(T0);
  const f = failing();
  const err = await retry(f.op(clock), {
    deadlineMs: 3_000,
    stopAtMs: T0 + 60_000,
    baseMs: 1_000,
    maxMs: 60_000,
    retryOn: retryAll,
    clock,
  }).catch((e) => e);
  assert.ok(err instanceof RetryGaveUp);
  assert.equal(err.bound, "deadline");
  // Attempts at 0 and 1 s; the next wait (2 s) would end at the deadline itself: not begun.
  assert.deepEqual(f.calls.map((c) => [c.at, c.remainingMs]), [[0, 3_000], [1_000, 2_000]]);
  assert.equal(clock.now() - T0, 1_000);
});

Deno.test("retry: the edges of the bounds — a stop at the very start, zero attempts, a refused result last", async () => {
  const clock = new FakeClock(T0);
  const atStop = failing();
  const stopped = await retry(atStop.op(clock), {
    stopAtMs: T0, // e.g. gate closure this very instant
    baseMs: 1,
    maxMs: 1,
    retryOn: retryAll,
    clock,
  }).catch((e) => e);
  assert.ok(stopped instanceof RetryGaveUp);
  assert.deepEqual([stopped.attempts, stopped.bound, atStop.calls.length], [0, "stop", 0]);

  const none = failing();
  const zero = await retry(none.op(clock), { attempts: 0, baseMs: 1, maxMs: 1, clock })
    .catch((e) => e);
  assert.ok(zero instanceof RetryGaveUp);
  assert.deepEqual([zero.attempts, zero.bound, none.calls.length], [0, "attempts", 0]);

  // An error, then a result isDone refuses: the last attempt left no error to report.
  let calls = 0;
  const refused = await retry((): Promise<string | undefined> => {
    calls++;
    return calls === 1 ? Promise.reject(new Error("busy")) : Promise.resolve(undefined);
  }, {
    attempts: 2,
    baseMs: 1,
    maxMs: 1,
    retryOn: retryAll,
    isDone: (v): v is string => v !== undefined,
    clock,
  }).catch((e) => e);
  assert.ok(refused instanceof RetryGaveUp);
  assert.deepEqual([refused.attempts, refused.lastError, refused.cause], [2, undefined, undefined]);
});

Deno.test("retry: an error it does not retry passes at once, unchanged, without a wait", async () => {
  const clock = new FakeClock(T0);
  const refusal = new TypeError("400 refused");
  let calls = 0;
  const err = await retry(() => {
    calls++;
    return Promise.reject(refusal);
  }, {
    attempts: 5,
    baseMs: 1_000,
    maxMs: 1_000,
    retryOn: (e) => e instanceof RangeError,
    clock,
  }).catch((e) => e);
  assert.equal(err, refusal);
  assert.equal(calls, 1);
  assert.equal(clock.now(), T0);
  // Without retryOn, no error is retried either.
  calls = 0;
  await assert.rejects(
    retry(() => {
      calls++;
      return Promise.reject(refusal);
    }, { attempts: 5, baseMs: 1, maxMs: 1, clock }),
    TypeError,
  );
  assert.equal(calls, 1);
});

Deno.test("retry: results that isDone refuses are retried; the first accepted one is returned", async () => {
  const clock = new FakeClock(T0);
  const answers = [undefined, undefined, "v3"];
  const out = await retry(({ attempt }) => Promise.resolve(answers[attempt - 1]), {
    attempts: 5,
    baseMs: 100,
    maxMs: 100,
    isDone: (v): v is string => v !== undefined,
    clock,
  });
  assert.equal(out, "v3");
  assert.equal(clock.now() - T0, 200);
});

Deno.test("retry: a policy without attempts, deadline or stop is refused before any attempt", async () => {
  let calls = 0;
  await assert.rejects(
    retry(() => Promise.resolve(calls++), { baseMs: 1, maxMs: 1 }),
    RangeError,
  );
  assert.equal(calls, 0);
});

Deno.test("FakeClock.sleep moves the fake time and resolves without a timer", async () => {
  const clock = new FakeClock(T0);
  await clock.sleep(90_000);
  await clock.sleep(-5);
  assert.equal(clock.now(), T0 + 90_000);
});

Deno.test("retryKv: 'database is locked' and SQLITE_BUSY are retried; other errors pass at once", async () => {
  assert.equal(isLockedError(new TypeError("database is locked")), true);
  assert.equal(isLockedError(new Error("SQLITE_BUSY: another connection")), true);
  assert.equal(isLockedError(new Error("database disk image is malformed")), false);
  assert.equal(isLockedError("database is locked"), false, "only Error objects");

  const waits: number[] = [];
  const sleep = (ms: number) => {
    waits.push(ms);
    return Promise.resolve();
  };
  let calls = 0;
  const value = await retryKv(
    "write",
    () => {
      calls++;
      if (calls === 1) return Promise.reject(new TypeError("database is locked"));
      if (calls === 2) return Promise.reject(new Error("SQLITE_BUSY"));
      if (calls === 3) return Promise.resolve(undefined); // a failed .check()
      return Promise.resolve(42);
    },
    50,
    sleep,
  );
  assert.equal(value, 42);
  assert.equal(calls, 4);
  assert.equal(waits.length, 3);
  waits.forEach((w, i) => {
    const plain = 2 ** i; // 1, 2, 4 ms
    assert.ok(w >= plain * 0.5 && w < plain * 1.5, `wait ${i + 1}: ${w} ms`);
  });

  calls = 0;
  const malformed = new Error("database disk image is malformed");
  await assert.rejects(
    retryKv(
      "write",
      () => {
        calls++;
        return Promise.reject(malformed);
      },
      50,
      sleep,
    ),
    (err) => err === malformed,
  );
  assert.equal(calls, 1);
});

Deno.test("retryKv: a lock that stays is a KvContentionError after the bound, waits capped at 50 ms", async () => {
  const waits: number[] = [];
  let calls = 0;
  await assert.rejects(
    retryKv(
      "orchestrator lease",
      () => {
        calls++;
        return Promise.reject(new TypeError("database is locked"));
      },
      12,
      (ms) => {
        waits.push(ms);
        return Promise.resolve();
      },
    ),
    (err) =>
      err instanceof KvContentionError &&
      err.message.startsWith("orchestrator lease: still conflicting after 12 attempts") &&
      err.code === "ERR_KV_CONTENTION",
  );
  assert.equal(calls, 12);
  assert.equal(waits.length, 11, "no wait after the last attempt");
  assert.ok(waits.slice(6).every((w) => w >= 25 && w < 75), `capped: ${waits.join(", ")}`);
});
