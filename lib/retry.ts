/**
 * The one retry loop of the service: bounded attempts with exponential backoff and jitter, on
 * the injected {@link Clock}. KV contention (`retryKv` in `store/kv.ts`) and the market-platform
 * client (`sendSchedules` in `adapters/market_platform.ts`) run on it; the console feed's
 * reconnects (`console/feed.ts`, a timer chain rather than a loop) wait {@link backoffMs}.
 *
 * Time is read from `policy.clock` and every backoff wait goes through `policy.sleep` (default:
 * the clock's own `sleep`, else a real timer). A `FakeClock` sleeps by moving its time, so a test
 * on a fake clock never waits in real time.
 *
 * @example
 * const value = await retry(() => readSomething(), {
 *   attempts: 5,
 *   baseMs: 100,
 *   maxMs: 2_000,
 *   jitter: 0.25,
 *   retryOn: (err) => err instanceof TypeError,
 * });
 * @module
 */
import { type Clock, realSleep, type Sleep, systemClock } from "./clock.ts";

/** What an attempt is told. */
export interface AttemptInfo {
  /** Number of this attempt, 1 for the first. */
  attempt: number;
  /**
   * Milliseconds on the clock until the deadline or the hard stop, whichever comes first, when
   * this attempt starts (`Infinity` without either): e.g. the longest an I/O of it may take.
   */
  remainingMs: number;
}

/** The backoff: after the n-th failed attempt (n ≥ 1) the wait is `min(maxMs, baseMs·2ⁿ⁻¹)`. */
export interface Backoff {
  /** Wait after the first failed attempt, in ms; it doubles with every further one. */
  baseMs: number;
  /** Longest wait in ms (before jitter). */
  maxMs: number;
  /**
   * Relative jitter j, 0 ≤ j < 1: each wait is multiplied by a random factor in [1 − j, 1 + j).
   * Default 0 (no jitter).
   */
  jitter?: number;
}

/**
 * When to try again. At least one of `attempts`, `deadlineMs` and `stopAtMs` bounds the loop.
 * @typeParam R what an attempt returns
 * @typeParam A the results that end the loop (see `isDone`)
 */
export interface RetryPolicy<R, A extends R = R> extends Backoff {
  /** Most attempts, the first included. Default: no bound on their number. */
  attempts?: number;
  /**
   * Time budget in ms on the clock, counted from the call: no attempt starts at or after it, and
   * no backoff wait that would reach it is begun. Default: none.
   */
  deadlineMs?: number;
  /**
   * Hard stop: an instant in ms since the epoch on the clock (e.g. a gate closure) with the effect
   * of the deadline; the earlier of the two applies. Default: none.
   */
  stopAtMs?: number;
  /** Whether a thrown error is worth another attempt; any other error passes through at once. Default: none is. */
  retryOn?: (err: unknown) => boolean;
  /** Whether a result ends the loop; a result it refuses is retried. Default: every result does. */
  isDone?: (result: R) => result is A;
  /** Time source for the deadline and the hard stop. Default: {@link systemClock}. */
  clock?: Clock;
  /** How backoff waits are spent. Default: `clock.sleep`, else a real timer. */
  sleep?: Sleep;
  /** Uniform random numbers in [0, 1) for the jitter. Default: `Math.random`. */
  random?: () => number;
}

/** Thrown by {@link retry} when the attempts, the deadline or the hard stop ran out. */
export class RetryGaveUp extends Error {
  /** Attempts made (0 when the deadline or the stop had passed before the first). */
  readonly attempts: number;
  /** Which bound ended the loop: the number of attempts, the deadline or the hard stop. */
  readonly bound: "attempts" | "deadline" | "stop";
  /** The retriable error of the last attempt; `undefined` when it returned a refused result. */
  readonly lastError: unknown;
  constructor(attempts: number, bound: RetryGaveUp["bound"], lastError: unknown) {
    super(
      `gave up after ${attempts} attempt${attempts === 1 ? "" : "s"} (${bound})`,
      lastError === undefined ? undefined : { cause: lastError },
    );
    this.name = "RetryGaveUp";
    this.attempts = attempts;
    this.bound = bound;
    this.lastError = lastError;
  }
}

/**
 * The wait in ms after `failures` failed attempts (≥ 1): `min(maxMs, baseMs·2^(failures−1))`,
 * times a jitter factor in [1 − jitter, 1 + jitter).
 * @param random uniform in [0, 1); unused without jitter
 */
export function backoffMs(failures: number, backoff: Backoff, random = Math.random): number {
  const plain = Math.min(backoff.maxMs, backoff.baseMs * 2 ** (failures - 1));
  const j = backoff.jitter ?? 0;
  return j ? plain * (1 - j + 2 * j * random()) : plain;
}

/**
 * Runs `op` until it returns a result that `isDone` accepts, retrying the errors `retryOn` accepts
 * after a backoff wait, within the attempts, the deadline and the hard stop of `policy`.
 *
 * @param op one attempt; told its number and the time left (ms)
 * @returns the first accepted result
 * @throws {RetryGaveUp} when a bound ran out; `lastError` holds the last retriable error
 * @throws whatever `op` throws that `retryOn` does not accept, at once, unchanged
 * @throws {RangeError} when the policy bounds neither the attempts nor the time
 */
export async function retry<R, A extends R = R>(
  op: (info: AttemptInfo) => Promise<R>,
  policy: RetryPolicy<R, A>,
): Promise<A> {
  const { attempts = Infinity, clock = systemClock } = policy;
  const deadline = policy.deadlineMs === undefined ? Infinity : clock.now() + policy.deadlineMs;
  const stop = policy.stopAtMs ?? Infinity;
  if (attempts === Infinity && deadline === Infinity && stop === Infinity) {
    throw new RangeError("retry: the policy needs attempts, deadlineMs or stopAtMs");
  }
  const end = Math.min(deadline, stop);
  const endBound = stop < deadline ? "stop" : "deadline";
  const sleep = policy.sleep ?? (clock.sleep ? (ms: number) => clock.sleep!(ms) : realSleep);
  let lastError: unknown;
  for (let n = 1;; n++) {
    if (n > attempts) throw new RetryGaveUp(n - 1, "attempts", lastError);
    const now = clock.now();
    if (now >= end) throw new RetryGaveUp(n - 1, endBound, lastError);
    try {
      const out = await op({ attempt: n, remainingMs: end - now });
      if (!policy.isDone || policy.isDone(out)) return out as A;
      lastError = undefined;
    } catch (err) {
      if (!policy.retryOn?.(err)) throw err;
      lastError = err;
    }
    if (n >= attempts) throw new RetryGaveUp(n, "attempts", lastError);
    const wait = backoffMs(n, policy, policy.random);
    if (clock.now() + wait >= end) throw new RetryGaveUp(n, endBound, lastError);
    await sleep(wait);
  }
}
