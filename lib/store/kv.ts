/**
 * Opening Deno KV and retrying contended writes (docs/architecture.md, "Writes and concurrency").
 * @module
 */
import { realSleep, type Sleep } from "../clock.ts";
import { retry, RetryGaveUp } from "../retry.ts";
import { StoreContended } from "../domain/errors.ts";
import { markInputWrites } from "./input_generation.ts";

/**
 * Opens the KV store at `path` with contended writes retried ({@link withLockRetry}) and writes
 * of the console's inputs marked (`./input_generation.ts`): a file path (its folder is created) or a KV Connect URL,
 * which goes to `Deno.openKv` unchanged and whose atomic writes carry at most
 * {@link MAX_CHECKS_KV_CONNECT} checks ({@link maxChecks}).
 *
 * @param path e.g. `./data/bridge.kv`, `https://api.deno.com/databases/<id>/connect`, or `""`
 *   for the managed KV of Deno Deploy
 * @throws whatever `Deno.openKv` throws (unreadable file, bad URL)
 */
export async function openKv(path: string): Promise<Deno.Kv> {
  // Deno Deploy's managed KV
  if (path === "") return markInputWrites(withLockRetry(await Deno.openKv()));
  if (!/^https?:\/\//.test(path) && path !== ":memory:") {
    const dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : ".";
    if (dir) await Deno.mkdir(dir, { recursive: true });
  }
  const kv = markInputWrites(withLockRetry(await Deno.openKv(path)));
  if (/^https?:\/\//.test(path)) checkLimits.set(kv, MAX_CHECKS_KV_CONNECT);
  return kv;
}

const WRAPPED = Symbol("lock-retrying KV");
/** Attempts of one commit, set or delete while the store stays locked. */
const LOCKED_ATTEMPTS = 50;

/**
 * The store with `database is locked` (replicas sharing one SQLite file) retried under every
 * write: `atomic().…commit()`, `set` and `delete` are retried with a short backoff (1–50 ms, at
 * most {@link LOCKED_ATTEMPTS} attempts), so no call site can forget it. A locked atomic
 * operation is committed again as it is (nothing of it applied; its values were fixed when set).
 * Reads, lists and watches pass through unchanged. Wrapping twice returns the same wrapper.
 * @param opts.sleep how the backoff waits, in ms (default: real time; tests pass a fake one)
 * @throws {KvContentionError} from a write when the store stayed locked through every attempt
 */
export function withLockRetry(kv: Deno.Kv, opts: { sleep?: Sleep } = {}): Deno.Kv {
  if ((kv as unknown as Record<symbol, unknown>)[WRAPPED]) return kv;
  const locked = <T>(what: string, fn: () => Promise<T>) =>
    retryKv(what, async () => ({ value: await fn() }), LOCKED_ATTEMPTS, opts.sleep)
      .then((r) => r.value);
  return new Proxy(kv, {
    get(target, prop) {
      if (prop === WRAPPED) return true;
      if (prop === "atomic") return () => retryingAtomic(target, locked);
      if (prop === "set" || prop === "delete") {
        const write = Reflect.get(target, prop) as (...a: unknown[]) => Promise<unknown>;
        return (...args: unknown[]) => locked(`kv.${prop}`, () => write.apply(target, args));
      }
      const v = Reflect.get(target, prop);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

/**
 * An atomic operation whose commit is retried while locked. Deno's atomic serializes each value
 * when it is set and can be committed again: a commit that failed with `database is locked`
 * applied nothing, so the retry sends the very same operation — the values as they were when set,
 * the checks as they were — without recording or copying anything.
 */
function retryingAtomic(
  kv: Deno.Kv,
  locked: <T>(what: string, fn: () => Promise<T>) => Promise<T>,
): Deno.AtomicOperation {
  const op = kv.atomic();
  const commit = op.commit.bind(op);
  op.commit = () => locked("kv commit", commit);
  return op;
}

/**
 * Thrown when a read-modify-write kept conflicting after every attempt: the domain's
 * {@link StoreContended} (code `ERR_KV_CONTENTION`, answered 503 with `Retry-After` at the edge).
 */
export class KvContentionError extends StoreContended {
  constructor(what: string, attempts: number) {
    super(what, attempts);
    this.name = "KvContentionError";
  }
}

/** Retried KV attempts in this process: after `database is locked`, and after a failed check. */
const KV_RETRIES = { locked: 0, conflict: 0 };

/**
 * How many KV attempts this process retried since it started, by reason: `locked` (the SQLite
 * file was locked by another connection) and `conflict` (a read-check-commit found the entry
 * changed). Process scope, for the metrics (docs/metrics.md).
 */
export function kvRetryCounts(): Readonly<{ locked: number; conflict: number }> {
  return KV_RETRIES;
}

/** Counts one round lost to a failed check, for a retry loop other than {@link retryKv}. */
export function countConflictRetry(): void {
  KV_RETRIES.conflict++;
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
  // Counted for the metrics: each attempt after the first, by what made it necessary.
  let again: keyof typeof KV_RETRIES | undefined;
  const counted = async () => {
    if (again) KV_RETRIES[again]++;
    try {
      const out = await attempt();
      again = out === undefined ? "conflict" : undefined;
      return out;
    } catch (err) {
      again = isLockedError(err) ? "locked" : undefined;
      throw err;
    }
  };
  try {
    return await retry(counted, {
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

/** Keys per `kv.getMany` (the KV limit). */
const GET_MANY_LIMIT = 10;

/** Checks per atomic write of Deno's own stores: a local file, Deno Deploy's managed KV. */
export const MAX_CHECKS_LOCAL = 100;
/**
 * Checks per atomic write over KV Connect: 10, the limit of a self-hosted `denokv` (denokv
 * `proto/limits.rs` `MAX_CHECKS`, refused as `TooManyChecks`; docs/kv.md, "Limits that matter").
 */
export const MAX_CHECKS_KV_CONNECT = 10;
const checkLimits = new WeakMap<Deno.Kv, number>();

/**
 * The checks one atomic write on `kv` may carry: {@link MAX_CHECKS_KV_CONNECT} for a store
 * {@link openKv} opened on a KV Connect URL, else {@link MAX_CHECKS_LOCAL}.
 */
export function maxChecks(kv: Deno.Kv): number {
  return checkLimits.get(kv) ?? MAX_CHECKS_LOCAL;
}

/**
 * Reads many keys: `kv.getMany` in chunks of 10 (the KV limit), all chunks concurrently.
 * @returns one entry per key, in the order of `keys`
 */
export async function getManyChunked<T>(
  kv: Deno.Kv,
  keys: Deno.KvKey[],
): Promise<Deno.KvEntryMaybe<T>[]> {
  const chunks: Promise<Deno.KvEntryMaybe<T>[]>[] = [];
  for (let i = 0; i < keys.length; i += GET_MANY_LIMIT) {
    chunks.push(kv.getMany<T[]>(keys.slice(i, i + GET_MANY_LIMIT)));
  }
  return (await Promise.all(chunks)).flat();
}

/**
 * Reads the entries `[...prefix, id]` of many `ids` (string key parts under one prefix). A batch
 * usually covers a run of IDs (a bulk upload in ID order): then one range read from the lowest to
 * the highest ID finds them all, far cheaper than 10-key reads. When the range holds more than
 * twice as many entries as asked for (IDs scattered among many others), it falls back to
 * {@link getManyChunked} — judged already after the range's first batch of up to 1,000 entries
 * when fewer than half of them were asked for, so scattered IDs (customers spread over a large
 * portfolio) do not first list twice their number in vain.
 * @returns one entry per ID, in the order of `ids`
 */
export async function getManyInRange<T>(
  kv: Deno.Kv,
  prefix: Deno.KvKey,
  ids: string[],
): Promise<Deno.KvEntryMaybe<T>[]> {
  const keyOf = (id: string): Deno.KvKey => [...prefix, id];
  if (ids.length > GET_MANY_LIMIT) {
    let lo = ids[0], hi = ids[0];
    for (const id of ids) {
      if (id < lo) lo = id;
      if (id > hi) hi = id;
    }
    const limit = ids.length * 2;
    const batchSize = Math.min(limit, 1000); // the KV limit of one list batch
    const asked = new Set(ids);
    const found = new Map<string, Deno.KvEntry<T>>();
    let listed = 0;
    let hits = 0;
    let scattered = false;
    for await (
      const e of kv.list<T>({ start: keyOf(lo), end: keyOf(hi + "\0") }, { limit, batchSize })
    ) {
      listed++;
      const id = e.key[prefix.length] as string;
      if (asked.has(id)) hits++;
      found.set(id, e);
      // The first batch shows scattered IDs: stop listing (the range would hit the limit).
      if (listed === batchSize && listed < limit && hits * 2 < listed) {
        scattered = true;
        break;
      }
    }
    if (!scattered && listed < limit) {
      return ids.map((id) => found.get(id) ?? { key: keyOf(id), value: null, versionstamp: null });
    }
  }
  return await getManyChunked<T>(kv, ids.map(keyOf));
}

/**
 * The in-process locks of each store: apps on the same store share them (they share the data),
 * apps on different stores in one process do not.
 */
const locksOfStore = new WeakMap<Deno.Kv, Map<string, Promise<unknown>>>();

/**
 * Runs `fn` while holding the lock `name` of this store in this process: calls with the same
 * store and name run one after the other, in call order. (Other processes are kept consistent by
 * the versionstamp checks of the writes; the lock only spares this process needless conflicts.)
 */
export function withStoreLock<T>(kv: Deno.Kv, name: string, fn: () => Promise<T>): Promise<T> {
  let locks = locksOfStore.get(kv);
  if (!locks) locksOfStore.set(kv, locks = new Map());
  const prev = locks.get(name) ?? Promise.resolve();
  const run = prev.catch(() => {}).then(fn);
  const tail = run.catch(() => {});
  locks.set(name, tail);
  tail.then(() => {
    if (locks!.get(name) === tail) locks!.delete(name);
  });
  return run;
}
