/**
 * The time source every module receives, so tests can move time without waiting.
 * @module
 */

/**
 * Waits `ms` milliseconds (on whatever time the implementation keeps); may resolve early when
 * `signal` aborts. Never rejects.
 */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** A source of the current instant, in milliseconds since the Unix epoch (UTC). */
export interface Clock {
  /** Current instant in ms since 1970-01-01T00:00:00Z. */
  now(): number;
  /**
   * Waits `ms` milliseconds on this clock: what a backoff of `lib/retry.ts` waits with when no
   * other sleep is given. Absent: a real timer ({@link realSleep}).
   */
  sleep?: Sleep;
}

/**
 * Clock skew tolerated between this service and whoever issued a token (an OIDC issuer, another
 * replica), in seconds: `exp`/`nbf` of bearer tokens, a bearer `iat` ahead of now, and how far
 * ahead of now + lifetime a stream token may expire.
 */
export const CLOCK_LEEWAY_SECONDS = 30;

/**
 * Waits `ms` milliseconds of real time; resolves early when `signal` aborts (the timer is then
 * cleared, so nothing stays pending).
 * @param ms the wait in ms (≤ 0: the next timer turn)
 */
export function realSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** The wall clock of this machine; it sleeps in real time. */
export const systemClock: Clock = { now: () => Date.now(), sleep: realSleep };

/**
 * A clock that stands still until told to move; for tests.
 *
 * @example
 * const clock = new FakeClock(Date.parse("2026-03-28T08:00:00Z"));
 * clock.advance(300_000); // five minutes later
 * await clock.sleep(500); // resolves at once, 500 ms later on this clock
 */
export class FakeClock implements Clock {
  #ms: number;
  /** @param startMs initial instant in ms since the epoch (UTC) */
  constructor(startMs: number = Date.now()) {
    this.#ms = startMs;
  }
  /** Current fake instant in ms since the epoch. */
  now(): number {
    return this.#ms;
  }
  /** Moves the clock forward (or back, with a negative value) by `ms` milliseconds. */
  advance(ms: number): void {
    this.#ms += ms;
  }
  /**
   * Sleeps on the fake time: moves the clock forward by `ms` milliseconds (nothing for `ms` ≤ 0)
   * and resolves at once, without a real timer.
   */
  sleep(ms: number): Promise<void> {
    if (ms > 0) this.#ms += ms;
    return Promise.resolve();
  }
  /** Sets the clock to an absolute instant in ms since the epoch. */
  set(ms: number): void {
    this.#ms = ms;
  }
}
