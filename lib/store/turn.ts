/**
 * Taking turns on a contended store (docs/architecture.md, "Writes and concurrency"): optimistic
 * read-check-commit rounds that, after a few lost rounds, take a *turn* — a KV key that every
 * write of the same kind checks — so that a process that keeps losing to another (whose caches
 * are warm and whose rounds are shorter) gets its write in, instead of starving until its retry
 * budget runs out.
 *
 * Every guarded commit checks that the turn key is absent ({@link TurnGuard.guard}); the holder's
 * commit checks its own turn instead and deletes it in the same atomic. While a turn is held, the
 * other processes' guarded commits fail their check and retry after a jittered backoff. A turn
 * is a lease of {@link TURN_LEASE_MS} on the wall clock (the processes share no other clock): a
 * turn left by a crashed process is taken over once it has run out.
 * @module
 */
import { realSleep, type Sleep } from "../clock.ts";
import { retry, RetryGaveUp } from "../retry.ts";
import { countConflictRetry, isLockedError, KvContentionError } from "./kv.ts";

/** How long a turn holds at most, in ms (its holder needs one round, a few ms). */
export const TURN_LEASE_MS = 2_000;

/** Lost rounds after which a writer takes the turn. */
const TURN_AFTER = 3;

/**
 * How long one write waits in line for other writers' turns in all, in ms, before waiting
 * counts against its rounds again: waiting in line is not losing (with many writers over KV
 * Connect, where a holder's round takes several round trips, the line is longer than the 50
 * rounds' backoff), but a turn that is never given back must still end in a 503.
 */
export const TURN_WAIT_MS = 5_000;
/** Polls of a waiting writer at most (bounds the wait also when `sleep` is not real time). */
const TURN_POLLS = 1_000;

/** The stored turn: who holds it and until when (ms since the epoch, wall clock). */
interface TurnValue {
  holder: string;
  until: number;
}

/** What a round adds to its atomic so that it respects the turn. */
export interface TurnGuard {
  /** Adds the turn's check to `op` (absent, or this writer's own, then deleted). */
  guard(op: Deno.AtomicOperation): Deno.AtomicOperation;
}

/** Retry budget of {@link retryWithTurn}. */
export interface TurnPolicy {
  /** Rounds at most, the first included (default 50). */
  attempts?: number;
  /** How the backoff waits, in ms (default: real time: the other process is not on our clock). */
  sleep?: Sleep;
  /**
   * Runs each round while holding an in-process lock (e.g. `withMasterDataLock`): the lock is
   * held for the round only, not through the backoff and the turn-taking between rounds, so a
   * writer that keeps losing to another process (or the pipeline worker) does not hold up this
   * process's other writers while it waits (docs/mixed-load.md, "The 5.8 s request").
   */
  lock?: <R>(round: () => Promise<R>) => Promise<R>;
}

/**
 * Runs `round` until it returns a value other than `undefined` (`undefined`: its commit's check
 * failed, read again), with a jittered backoff of 1–50 ms between rounds ({@link retry}). After
 * {@link TURN_AFTER} lost rounds the writer takes the turn `turnKey` (waiting while another
 * holds it) and its next round runs with the turn held; the turn is given back at the end in any
 * case. `round` must add {@link TurnGuard.guard} to the atomic it commits; with `policy.lock`
 * each round (and only the round) runs holding that lock.
 * @param what names the operation in the error (a function: asked when the error is made)
 * @throws {KvContentionError} when the rounds ran out (the HTTP answer is 503 with `Retry-After`)
 * @throws whatever `round` throws, except `database is locked` (retried)
 */
export async function retryWithTurn<T>(
  kv: Deno.Kv,
  turnKey: Deno.KvKey,
  what: string | (() => string),
  round: (turn: TurnGuard) => Promise<T | undefined>,
  policy: TurnPolicy = {},
): Promise<T> {
  const attempts = policy.attempts ?? 50;
  const sleep = policy.sleep ?? realSleep;
  let holder: string | undefined; // named when the turn is first asked for
  let held: string | null = null; // versionstamp of our turn
  let lost = 0;
  let waitUntil = 0; // the end of this write's time in line, set when it first waits
  const turn: TurnGuard = {
    guard: (op) =>
      held === null
        ? op.check({ key: turnKey, versionstamp: null })
        : op.check({ key: turnKey, versionstamp: held }).delete(turnKey),
  };
  try {
    return await retry<T | undefined, T>(async (): Promise<T | undefined> => {
      if (lost >= TURN_AFTER && held === null) {
        waitUntil ||= Date.now() + TURN_WAIT_MS;
        held = await waitForTurn(kv, turnKey, holder ??= crypto.randomUUID(), waitUntil, sleep);
        if (held === null) return undefined; // still another writer's turn: a lost round
      }
      const out = await (policy.lock ? policy.lock(() => round(turn)) : round(turn));
      if (out !== undefined) return out;
      lost++;
      countConflictRetry(); // the metrics' conflict retries (docs/metrics.md)
      // Still ours? (A round can lose to a write that does not take turns.)
      if (held !== null) held = await takeTurn(kv, turnKey, holder!);
      return undefined;
    }, {
      attempts,
      baseMs: 1,
      maxMs: 50,
      jitter: 0.5,
      isDone: (out): out is T => out !== undefined,
      retryOn: isLockedError,
      sleep,
    });
  } catch (err) {
    if (err instanceof RetryGaveUp) {
      throw new KvContentionError(typeof what === "string" ? what : what(), attempts);
    }
    throw err;
  } finally {
    // A round that committed deleted the turn already (then this check fails and changes nothing).
    if (held !== null) {
      await kv.atomic().check({ key: turnKey, versionstamp: held }).delete(turnKey).commit()
        .catch(() => {}); // it runs out by itself
    }
  }
}

/**
 * Waits in line for the turn `key`: takes it as soon as nobody else holds it, polling every
 * 2–20 ms (jittered, so that waiting writers do not poll in step) until `until` (ms since the
 * epoch, wall clock) or {@link TURN_POLLS} polls. Returns the turn's versionstamp, or `null`
 * when another writer still holds it then (at once when `until` has passed).
 */
async function waitForTurn(
  kv: Deno.Kv,
  key: Deno.KvKey,
  holder: string,
  until: number,
  sleep: Sleep,
): Promise<string | null> {
  for (let poll = 0; poll < TURN_POLLS; poll++) {
    const held = await takeTurn(kv, key, holder);
    if (held !== null || Date.now() >= until) return held;
    await sleep(2 + Math.random() * 18);
  }
  return null;
}

/**
 * Takes the turn `key` for `holder`: when nobody holds it, its lease ran out, or `holder` holds
 * it already. Returns the turn entry's versionstamp, or `null` while another holds it.
 */
async function takeTurn(kv: Deno.Kv, key: Deno.KvKey, holder: string): Promise<string | null> {
  const now = Date.now();
  const entry = await kv.get<TurnValue>(key);
  if (entry.value?.holder === holder) return entry.versionstamp;
  if (entry.value && entry.value.until > now) return null;
  const value: TurnValue = { holder, until: now + TURN_LEASE_MS };
  const r = await kv.atomic().check(entry).set(key, value, { expireIn: TURN_LEASE_MS }).commit();
  return r.ok ? r.versionstamp : null;
}
