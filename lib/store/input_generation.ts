/**
 * The generation of the console's inputs (docs/console_attention.md, "Read after write"):
 * whatever the attention list is read from lives under {@link CONSOLE_INPUT_PREFIXES}, and every
 * write there also sums {@link KEYS.consoleInputsGeneration} in the same atomic. The status route
 * keys its cached list on {@link InputGeneration.current}, so a change is never hidden behind a
 * list computed before it.
 *
 * The writers do not do this themselves: {@link markInputWrites} wraps the store once (`openKv`,
 * `createApp`, the pipeline worker), so no writer — and no writer added later — can forget it.
 * @module
 */
import { CONSOLE_INPUT_PREFIXES, KEYS } from "./keys.ts";

const MARKS = Symbol("input-marking KV");

/** What a marking wrapper counts: commits under the prefixes through it, in this process. */
interface Marks {
  writes: number;
}

const marksOf = (kv: Deno.Kv): Marks | undefined =>
  (kv as unknown as Record<symbol, Marks | undefined>)[MARKS];

/**
 * The store with every write under `prefixes` (a key whose first part is one of them) also
 * summing {@link KEYS.consoleInputsGeneration} by 1 in the same atomic: `atomic()…commit()`,
 * `set` and `delete`. A plain `set`/`delete` under a prefix becomes a one-key atomic with the sum
 * (sums never conflict, so no commit fails for it). Reads pass through. Wrapping twice returns
 * the same wrapper.
 * @param prefixes first key parts to mark (default {@link CONSOLE_INPUT_PREFIXES})
 */
export function markInputWrites(
  kv: Deno.Kv,
  prefixes: readonly string[] = CONSOLE_INPUT_PREFIXES,
): Deno.Kv {
  if (marksOf(kv)) return kv;
  const marks: Marks = { writes: 0 };
  const watched = new Set(prefixes);
  const touches = (key: Deno.KvKey) => watched.has(key[0] as string);
  const counted = <R extends { ok: boolean }>(r: R): R => {
    if (r.ok) marks.writes++;
    return r;
  };
  return new Proxy(kv, {
    get(target, prop) {
      if (prop === MARKS) return marks;
      if (prop === "atomic") return () => markingAtomic(target.atomic(), touches, counted);
      if (prop === "set") {
        return (key: Deno.KvKey, value: unknown, opts?: { expireIn?: number }) =>
          touches(key)
            ? target.atomic().set(key, value, opts).sum(KEYS.consoleInputsGeneration, 1n)
              .commit().then((r) => counted(r) as Deno.KvCommitResult)
            : target.set(key, value, opts);
      }
      if (prop === "delete") {
        return (key: Deno.KvKey) =>
          touches(key)
            ? target.atomic().delete(key).sum(KEYS.consoleInputsGeneration, 1n).commit()
              .then((r) => {
                counted(r);
              })
            : target.delete(key);
      }
      const v = Reflect.get(target, prop);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

/** An atomic operation that adds the generation sum at commit when a mutation touched a prefix. */
function markingAtomic(
  op: Deno.AtomicOperation,
  touches: (key: Deno.KvKey) => boolean,
  counted: <R extends { ok: boolean }>(r: R) => R,
): Deno.AtomicOperation {
  let touched = false;
  const note = (key: Deno.KvKey) => {
    if (!touched && touches(key)) touched = true;
  };
  const set = op.set.bind(op);
  const del = op.delete.bind(op);
  const sum = op.sum.bind(op);
  const min = op.min.bind(op);
  const max = op.max.bind(op);
  const mutate = op.mutate.bind(op);
  const commit = op.commit.bind(op);
  op.set = (key, value, opts) => (note(key), set(key, value, opts));
  op.delete = (key) => (note(key), del(key));
  op.sum = (key, n) => (note(key), sum(key, n));
  op.min = (key, n) => (note(key), min(key, n));
  op.max = (key, n) => (note(key), max(key, n));
  op.mutate = (...mutations) => {
    for (const m of mutations) note(m.key);
    return mutate(...mutations);
  };
  let added = false;
  op.commit = () => {
    if (!touched) return commit();
    // Once, also when a commit is sent again after a lost check (the caller builds a new one).
    if (!added) {
      added = true;
      sum(KEYS.consoleInputsGeneration, 1n);
    }
    return commit().then(counted);
  };
  return op;
}

/**
 * Where the console's inputs stand, as one comparable token: this process's marked writes count
 * at once (the writer's `await` returns after the count), another process's and the pipeline
 * worker's when `kv.watch` reports the generation key (a fraction of a millisecond in one process,
 * at most the store's watch delay across processes), and {@link InputGeneration.touch} for a
 * writer this process learns of by other means.
 */
export class InputGeneration {
  #kv: Deno.Kv;
  /** Changes seen otherwise than through the wrapper: touches and watch reports. */
  #seen = 0;
  #stamp: string | null = null;
  #reader?: ReadableStreamDefaultReader<Deno.KvEntryMaybe<unknown>[]>;
  #watching?: Promise<void>;
  #closed = false;

  /** @param kv the store, wrapped by {@link markInputWrites} (else only watch and touch count) */
  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  /**
   * A number that grows whenever an input write was seen: the sum of two counters that only grow
   * (no allocation: the status route asks on every request).
   */
  current(): number {
    return (marksOf(this.#kv)?.writes ?? 0) + this.#seen;
  }

  /** Counts a write this process learnt of otherwise (the pipeline worker's job returned). */
  touch(): void {
    this.#seen++;
  }

  /** Follows the generation key with `kv.watch`. Idempotent; call {@link close} at the end. */
  watch(): void {
    if (this.#reader || this.#closed) return;
    const reader = this.#kv.watch([KEYS.consoleInputsGeneration]).getReader();
    this.#reader = reader;
    this.#watching = (async () => {
      try {
        while (!this.#closed) {
          const { done, value } = await reader.read();
          if (done) break;
          if (value[0].versionstamp !== this.#stamp) {
            this.#stamp = value[0].versionstamp;
            this.#seen++;
          }
        }
      } catch {
        // The store was closed or the watch failed: own writes still count at once.
      }
    })();
  }

  /** Stops the watch and waits for it to end. */
  async close(): Promise<void> {
    this.#closed = true;
    const reader = this.#reader;
    this.#reader = undefined;
    if (reader) {
      await reader.cancel().catch(() => {});
      await this.#watching;
    }
  }
}
