/**
 * Opening Deno KV and retrying contended writes (docs/architecture.md, "Writes and concurrency").
 * @module
 */
import { realSleep, type Sleep } from "../clock.ts";
import { retry, RetryGaveUp } from "../retry.ts";

/**
 * Opens the KV store at `path`: a file path (its folder is created) or a KV Connect URL,
 * which goes to `Deno.openKv` unchanged.
 *
 * @param path e.g. `./data/bridge.kv`, `https://api.deno.com/databases/<id>/connect`, or `""`
 *   for the managed KV of Deno Deploy
 * @throws whatever `Deno.openKv` throws (unreadable file, bad URL)
 */
export async function openKv(path: string): Promise<Deno.Kv> {
  if (path === "") return await Deno.openKv(); // Deno Deploy's managed KV
  if (!/^https?:\/\//.test(path) && path !== ":memory:") {
    const dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : ".";
    if (dir) await Deno.mkdir(dir, { recursive: true });
  }
  return await Deno.openKv(path);
}

/** Thrown when a read-modify-write kept conflicting after every attempt. */
export class KvContentionError extends Error {
  /** Stable code for callers. */
  readonly code = "ERR_KV_CONTENTION";
  constructor(what: string, attempts: number) {
    super(`${what}: still conflicting after ${attempts} attempts`);
    this.name = "KvContentionError";
  }
}

/** True for the transient error a shared SQLite file throws under contention. */
export function isLockedError(err: unknown): boolean {
  return err instanceof Error && /database is locked|SQLITE_BUSY/i.test(err.message);
}

/**
 * Runs `attempt` until it returns a value other than `undefined`. `undefined` means "my
 * `.check()` failed, read again"; a `database is locked` error is retried too. Backoff grows
 * from 1 ms to 50 ms with jitter (×0.5 to ×1.5), through {@link retry}.
 *
 * The waits are real time by default even where the service runs on a fake clock: the lock is
 * held by another connection or process, which a fake clock cannot make release it sooner.
 *
 * @param what names the operation in the error
 * @param attempt one read-check-commit round; return `undefined` on a failed check
 * @param maxAttempts bound on rounds (default 50)
 * @param sleep how the backoff waits, in ms (default: real time)
 * @throws {KvContentionError} when every round conflicted; other errors pass through
 */
export async function retryKv<T>(
  what: string,
  attempt: () => Promise<T | undefined>,
  maxAttempts = 50,
  sleep: Sleep = realSleep,
): Promise<T> {
  try {
    return await retry(attempt, {
      attempts: maxAttempts,
      baseMs: 1,
      maxMs: 50,
      jitter: 0.5,
      isDone: (out): out is T => out !== undefined,
      retryOn: isLockedError,
      sleep,
    });
  } catch (err) {
    if (err instanceof RetryGaveUp) throw new KvContentionError(what, maxAttempts);
    throw err;
  }
}
