/**
 * The registered MaLo-IDs of one store, held in memory (docs/pipeline.md, "Market locations"), so
 * that a forecast upload can tell which of its 500 market locations are registered without reading
 * their 500 master-data records (about 3 ms of a 13 ms batch on one core).
 *
 * The index is valid for one master-data version entry, named by its versionstamp: every change of
 * master data bumps that entry in the same atomic as the change (`./market_locations.ts`), so an
 * index whose versionstamp equals the entry's current one is exact. This process's own changes
 * move the index along ({@link RegisteredIds.committed}); a change by another process (a replica
 * on the same store) leaves it behind, and it is built again from the stored market locations in
 * the background while lookups read the store as before.
 *
 * Memory: a `Set` of MaLo-ID strings, about 50 bytes per market location (50 MiB at 1,000,000).
 * This module holds no KV key: the owner of the market locations reads the store for it.
 * @module
 */

/** One committed master-data change: the version entry it was read at and the one it wrote. */
interface Commit {
  /** Versionstamp of the master-data version entry the change was checked against (`null`: none). */
  from: string | null;
  /** Versionstamp the change's atomic wrote. */
  to: string;
  added: readonly string[];
  removed: readonly string[];
}

/** What a build reads: the version entry's versionstamp, and every registered MaLo-ID. */
export interface RegisteredIdsSource {
  /**
   * The master-data version entry's versionstamp (`null`: no master data written yet), read when
   * every change of this process committed so far has been reported ({@link RegisteredIds.committed}).
   */
  versionstamp(): Promise<string | null>;
  /** Every registered MaLo-ID (a listing: it need not be one snapshot). */
  ids(): AsyncIterable<string>;
}

/** How long a failed build waits before the next, as a multiple of the failed build's duration. */
const BACKOFF_FACTOR = 4;

/** The in-memory index of registered MaLo-IDs of one store (see the module comment). */
export class RegisteredIds {
  #index?: { stamp: string | null; ids: Set<string> };
  /** This process's commits while a build runs, in commit order. */
  #log?: Commit[];
  #building?: Promise<void>;
  /** `performance.now()` before which no new build starts (after a failed one). */
  #notBefore = 0;

  /**
   * The registered ones among `ids`, when the index reflects the master-data version entry with
   * versionstamp `stamp`; `undefined` when it does not (read the store instead).
   */
  lookup(stamp: string | null, ids: readonly string[]): Set<string> | undefined {
    const index = this.#index;
    if (!index || index.stamp !== stamp) return undefined;
    const out = new Set<string>();
    for (const id of ids) if (index.ids.has(id)) out.add(id);
    return out;
  }

  /**
   * True when the index reflects a later master-data version than `stamp` (a lookup raced with a
   * change of this process): the index is current, it need not be built again. A store assigns
   * "ever-increasing" versionstamps (Deno.Kv API documentation), 20 hex digits each, so the
   * strings compare in version order.
   */
  isAhead(stamp: string | null): boolean {
    const own = this.#index?.stamp;
    return own !== undefined && own !== null && (stamp === null || own > stamp);
  }

  /**
   * Records a committed master-data change of this process: the index moves along when it
   * reflected the version the change was checked against, and is dropped otherwise.
   * @param from versionstamp of the version entry the change's atomic checked (`null`: none)
   * @param to the change's versionstamp (the version entry's new one)
   */
  committed(
    from: string | null,
    to: string,
    added: readonly string[],
    removed: readonly string[],
  ): void {
    const commit = { from, to, added, removed };
    this.#log?.push(commit);
    const index = this.#index;
    if (index && index.stamp === from) {
      apply(index.ids, commit);
      index.stamp = to;
    } else this.#index = undefined;
  }

  /**
   * Starts building the index from `source` in the background, unless it is current, a build
   * is running, or the last one failed too recently. A build fails when a change of another
   * process lands during it; the next one then waits four times as long as that build took.
   */
  rebuild(source: RegisteredIdsSource): void {
    if (this.#building || performance.now() < this.#notBefore) return;
    const started = performance.now();
    const log: Commit[] = this.#log = [];
    this.#building = build(source, log)
      .then((index) => {
        if (index) this.#index = index;
        else this.#notBefore = performance.now() + (performance.now() - started) * BACKOFF_FACTOR;
      })
      .catch(() => {
        // The store went away (closed) or failed: the lookups keep reading it.
        this.#notBefore = performance.now() + (performance.now() - started) * BACKOFF_FACTOR;
      })
      .finally(() => {
        this.#log = undefined;
        this.#building = undefined;
      });
  }

  /** Resolves when no build is running (before the store is closed). */
  async settled(): Promise<void> {
    await this.#building;
  }
}

function apply(ids: Set<string>, c: Commit): void {
  for (const id of c.added) ids.add(id);
  for (const id of c.removed) ids.delete(id);
}

/**
 * Lists every MaLo-ID between two reads of the version entry, then replays this process's
 * commits logged meanwhile (adding and removing is idempotent, so whether the listing saw a
 * change or not, the result is the state after it). The index is valid only when those commits
 * lead from the first versionstamp to the second; else another process changed master data.
 */
async function build(
  source: RegisteredIdsSource,
  log: Commit[],
): Promise<{ stamp: string | null; ids: Set<string> } | undefined> {
  const before = await source.versionstamp();
  const ids = new Set<string>();
  for await (const id of source.ids()) ids.add(id);
  const after = await source.versionstamp();
  // Commits logged before `before` was read already show in it (and in the listing).
  let stamp = before;
  for (const c of log.slice(log.findIndex((c) => c.to === before) + 1)) {
    if (c.from !== stamp) return undefined;
    apply(ids, c);
    stamp = c.to;
  }
  return stamp === after ? { stamp, ids } : undefined;
}
