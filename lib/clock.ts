/**
 * The time source every module receives, so tests can move time without waiting.
 * @module
 */

/** A source of the current instant, in milliseconds since the Unix epoch (UTC). */
export interface Clock {
  /** Current instant in ms since 1970-01-01T00:00:00Z. */
  now(): number;
}

/**
 * Clock skew tolerated between this service and whoever issued a token (an OIDC issuer, another
 * replica), in seconds: `exp`/`nbf` of bearer tokens, a bearer `iat` ahead of now, and how far
 * ahead of now + lifetime a stream token may expire.
 */
export const CLOCK_LEEWAY_SECONDS = 30;

/** The wall clock of this machine. */
export const systemClock: Clock = { now: () => Date.now() };

/**
 * A clock that stands still until told to move; for tests.
 *
 * @example
 * const clock = new FakeClock(Date.parse("2026-03-28T08:00:00Z"));
 * clock.advance(300_000); // five minutes later
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
  /** Sets the clock to an absolute instant in ms since the epoch. */
  set(ms: number): void {
    this.#ms = ms;
  }
}
