/**
 * A change of master data (docs/pipeline.md, "Market locations"): what every create, replace and
 * delete of market locations (`./market_locations.ts`) commits besides the locations themselves —
 * the master-data version bumped, the profile class table (`./profile_classes.ts`) kept in step,
 * the open delivery days marked stale — and the per-store caches that follow those commits: the
 * class table of the current version and the in-memory index of registered MaLo-IDs
 * (`./registered_ids.ts`). Owns the master-data version key `["meta", "market_locations_version"]`
 * and the master-data turn `["meta", "market_locations_turn"]` (`../store/turn.ts`).
 * @module
 */
import type { MarketLocation } from "./market_location_record.ts";
import { addDays, deliveryDay, localDayOf } from "../domain/delivery_day.ts";
import { maxChecks, retryKv, withStoreLock } from "../store/kv.ts";
import { retryWithTurn, type TurnGuard } from "../store/turn.ts";
import {
  applyChanges,
  type ProfileClassTable,
  readClassTable,
  writeClassTable,
} from "./profile_classes.ts";
import { type DayState, inputChanged, updateDay, writeDay } from "./day_state.ts";
import { RegisteredIds } from "./registered_ids.ts";
import { KEYS } from "../store/keys.ts";

const MASTER_VERSION = KEYS.masterDataVersion;

/** Counter bumped by every change of master data (0 = never any market location). */
export async function masterDataVersion(kv: Deno.Kv): Promise<number> {
  const v = (await kv.get<Deno.KvU64>(MASTER_VERSION)).value;
  return v ? Number(v.value) : 0;
}

/**
 * Who changes master data, and how to tell which delivery days are still open. When given, every
 * stored delivery day whose gate closure is still ahead gets its `input_version` bumped in the
 * same atomic as the change (`last_input.source = "master_data"`), so its aggregate, file and
 * submission turn stale and the orchestrator redoes them before gate closure: a market location
 * that moves to another control area, changes direction, profile or annual energy, or is
 * removed changes the open position.
 */
export interface MasterDataChange {
  /** Caller name, recorded as `last_input.by` of the days marked stale. */
  by: string;
  /** Gate closure `HH:MM` (Europe/Berlin, day before): only days before theirs are marked. */
  gateClosureLocalTime: string;
}

/**
 * Day states that a master-data change can make stale: gate closure still ahead at `nowMs`, and
 * some step already recorded (a day nothing has consumed yet cannot be stale). Date order.
 */
export async function openDays(
  kv: Deno.Kv,
  nowMs: number,
  gateClosureLocalTime: string,
): Promise<Deno.KvEntry<DayState>[]> {
  const from = addDays(localDayOf(nowMs), 1);
  const out: Deno.KvEntry<DayState>[] = [];
  for await (
    const e of kv.list<DayState>(KEYS.daysFrom(from))
  ) {
    const day = e.key[1] as string;
    if (Object.keys(e.value.steps).length === 0) continue;
    if (deliveryDay(day, gateClosureLocalTime).gateClosure.epochMilliseconds > nowMs) out.push(e);
  }
  return out;
}

/**
 * Open days marked stale in the same atomic as the change, one check each: what the store's
 * {@link maxChecks} leaves beside the turn, the master-data version and the locations' own checks
 * (with a group of 8 single changes: 90 of 100 on a local file or Deno Deploy, 0 of 10 over
 * KV Connect to `denokv`; a batch checks no location: 98 or 8).
 */
const daysInAtomic = (kv: Deno.Kv, locationChecks: number) =>
  Math.max(0, maxChecks(kv) - 2 - locationChecks);

/** One market location's change: its entry as read, and what it becomes (`null`: deleted). */
export interface LocationChange {
  entry: Deno.KvEntryMaybe<MarketLocation>;
  next: MarketLocation | null;
}

/** The profile class table as read, with the master-data version entry it was read at. */
export interface ClassTableRead {
  table: ProfileClassTable;
  /** The master-data version entry (checked by the next master-data commit). */
  master: Deno.KvEntryMaybe<Deno.KvU64>;
  /** The open days to mark stale, when the caller read them already (beside the locations). */
  openDays?: Promise<Deno.KvEntry<DayState>[]>;
}

/**
 * The profile class table (`./profile_classes.ts`) of the current master data. When the stored
 * table does not reflect the current master-data version (a store from before the table, or a
 * change written by an earlier version during a rolling upgrade), it is built again from every
 * stored market location and stored, checked against the master-data version so that a change
 * made meanwhile makes the build start again.
 * @throws {KvContentionError} when master data kept changing during the build
 */
export async function profileClasses(kv: Deno.Kv): Promise<ClassTableRead> {
  return await retryKv("read the profile class table", async () => {
    const master = await kv.get<Deno.KvU64>(MASTER_VERSION);
    // The table of a master-data version never changes: the one this process last read or
    // wrote is reused while the version's entry is the same.
    const cached = tableCache.get(kv);
    if (cached && master.versionstamp !== null && cached.stamp === master.versionstamp) {
      return { table: cached.table, master };
    }
    const stored = await readClassTable(kv);
    const current = master.value ? Number(master.value.value) : 0;
    if (stored.version === current) {
      if (master.versionstamp) {
        tableCache.set(kv, { stamp: master.versionstamp, version: current, table: stored.table });
      }
      return { table: stored.table, master };
    }
    const locations: MarketLocation[] = [];
    for await (const e of kv.list<MarketLocation>(KEYS.marketLocations(), { batchSize: 1000 })) {
      locations.push(e.value);
    }
    const table = applyChanges({ classes: {} }, locations, () => null, (l) => l);
    const op = writeClassTable(kv.atomic().check(master), stored.table, table, current);
    return (await op.commit()).ok ? { table, master } : undefined; // changed meanwhile: again
  });
}

/**
 * Per store: the class table of the master-data version entry with versionstamp `stamp` and value
 * `version`, as this process last read or committed it (dropped when a commit's check failed).
 */
const tableCache = new WeakMap<
  Deno.Kv,
  { stamp: string; version: number; table: ProfileClassTable }
>();

/**
 * Commits a master-data change read at `read` (the class table and master-data version read
 * *before* the locations were): the location writes and deletes (with a check of each entry when
 * `checkEach`; a batch does without), the profile class table updated, and the master-data version checked and bumped — so any concurrent change, also from
 * another replica, makes this one read again and no update of the table is lost. With `change`,
 * the open days (see {@link MasterDataChange}) are marked stale in the same atomic — the nearest
 * {@link daysInAtomic} of them; any further ones (far-future days run by hand; over KV Connect
 * the days past the 10 checks) right after, one read-check-commit each. The caller runs in a round
 * of {@link retryMasterData} (which holds the master-data lock for the round), whose `turn` the
 * commit respects.
 * @returns false when a check failed (read again and retry)
 */
export async function commitMasterData(
  kv: Deno.Kv,
  read: ClassTableRead,
  changes: LocationChange[],
  checkEach: boolean,
  atMs: number,
  change: MasterDataChange | undefined,
  turn: TurnGuard,
): Promise<boolean> {
  const op = turn.guard(kv.atomic());
  for (const c of changes) {
    if (checkEach) op.check(c.entry);
    if (c.next) op.set(c.entry.key, c.next);
    else op.delete(c.entry.key);
  }
  const next = (read.master.value ? Number(read.master.value.value) : 0) + 1;
  op.check(read.master).set(MASTER_VERSION, new Deno.KvU64(BigInt(next)));
  const table = applyChanges(read.table, changes, (c) => c.entry.value, (c) => c.next);
  writeClassTable(op, read.table, table, next);
  const days = await (read.openDays ??
    (change ? openDays(kv, atMs, change.gateClosureLocalTime) : Promise.resolve([])));
  const lastInput = change && {
    at: new Date(atMs).toISOString(),
    by: change.by,
    market_locations: changes.length,
    source: "master_data" as const,
  };
  const bump = (s: DayState): DayState => inputChanged(s, lastInput!);
  const inAtomic = daysInAtomic(kv, checkEach ? changes.length : 0);
  for (const e of days.slice(0, inAtomic)) writeDay(op, e, bump(e.value));
  const r = await op.commit();
  if (!r.ok) {
    tableCache.delete(kv); // the retry reads the table and version again
    return false;
  }
  // The version entry now has this stamp and value.
  tableCache.set(kv, { stamp: r.versionstamp, version: next, table });
  const added: string[] = [], removed: string[] = [];
  for (const c of changes) {
    if (c.next === null) removed.push(c.entry.key[1] as string);
    else if (c.entry.value === null) added.push(c.next.malo_id);
  }
  idsOf(kv).committed(read.master.versionstamp, r.versionstamp, added, removed);
  for (const e of days.slice(inAtomic)) {
    await updateDay(kv, e.key[1] as string, (s) => Promise.resolve({ state: bump(s), result: 0 }));
  }
  return true;
}

/**
 * The class table and master-data version entry a change starts from: the ones this process last
 * read or committed, when it has them — no read, like the event log's head: while this process is
 * the only writer they are still current, and when another process wrote meanwhile, the commit's
 * check of the version entry fails, drops them, and the retry reads them ({@link profileClasses}).
 * The caller holds the master-data lock and reads the locations after this.
 * @throws {KvContentionError} see {@link profileClasses}
 */
export async function classTableForChange(kv: Deno.Kv): Promise<ClassTableRead> {
  const cached = tableCache.get(kv);
  if (!cached) return await profileClasses(kv);
  const value = new Deno.KvU64(BigInt(cached.version));
  return {
    table: cached.table,
    master: { key: MASTER_VERSION, value, versionstamp: cached.stamp },
  };
}

/**
 * Runs the rounds of a master-data change (each reads, then {@link commitMasterData}; `undefined`:
 * a check failed) until one commits: a jittered backoff of 1–50 ms between rounds, at most 50,
 * and after three lost rounds the writer takes the master-data turn (`../store/turn.ts`), so a
 * replica that keeps losing to another one's stream of changes gets its change in
 * (docs/architecture.md, "Writes and concurrency"). Each round runs holding this process's
 * master-data lock ({@link withMasterDataLock}); the backoff between rounds does not, so a change
 * that keeps losing does not hold up the process's other writers (docs/mixed-load.md, "The 5.8 s
 * request"). Call it without holding the lock.
 * @param what names the change in the error (a function: asked when the error is made)
 * @throws {KvContentionError} when the rounds ran out (answered 503 with `Retry-After`)
 */
export function retryMasterData<T>(
  kv: Deno.Kv,
  what: string | (() => string),
  round: (turn: TurnGuard) => Promise<T | undefined>,
): Promise<T> {
  const lock = <R>(fn: () => Promise<R>) => withMasterDataLock(kv, fn);
  return retryWithTurn(kv, KEYS.masterDataTurn, what, round, { lock });
}

/**
 * Runs a master-data change holding this process's master-data lock: changes from one process
 * never conflict on the class table (other processes' changes fail the check and are retried).
 */
export function withMasterDataLock<T>(kv: Deno.Kv, fn: () => Promise<T>): Promise<T> {
  return withStoreLock(kv, "master data", fn);
}

/** Per store: the in-memory index of registered MaLo-IDs (`./registered_ids.ts`). */
const idIndexes = new WeakMap<Deno.Kv, RegisteredIds>();

function idsOf(kv: Deno.Kv): RegisteredIds {
  let index = idIndexes.get(kv);
  if (!index) idIndexes.set(kv, index = new RegisteredIds());
  return index;
}

/** The versionstamp of the master-data version entry now (`null`: no master data written yet). */
export async function masterDataStamp(kv: Deno.Kv): Promise<string | null> {
  return (await kv.get(MASTER_VERSION)).versionstamp;
}

/**
 * The registered ones among `ids` per the in-memory index, when it reflects the master-data
 * version entry with versionstamp `stamp`; else `undefined` (read the store), and the index is
 * built in the background (see `./registered_ids.ts`) when it is still behind the stored version
 * entry once no change of this process is under way (see {@link rebuildIfBehind}) — not when it
 * is ahead of `stamp` (this process changed master data since `stamp` was read).
 */
export function indexedRegistered(
  kv: Deno.Kv,
  stamp: string | null,
  ids: readonly string[],
): Set<string> | undefined {
  const index = idsOf(kv);
  const known = index.lookup(stamp, ids);
  if (!known && !index.isAhead(stamp)) rebuildIfBehind(kv, index);
  return known;
}

/** Per store: the pending {@link rebuildIfBehind} check. */
const behindChecks = new WeakMap<Deno.Kv, Promise<void>>();

/**
 * Builds the index again when, under the master-data lock, it does not reflect the stored version
 * entry. A lookup can read the entry just after a change of this process committed and before the
 * change reported itself to the index ({@link commitMasterData}); under the lock that report is
 * done, the index is found current and nothing is listed. (Under a stream of single changes this
 * race started a listing of every MaLo-ID on the request thread several times a minute,
 * docs/mixed-load.md.) One check per store at a time.
 */
function rebuildIfBehind(kv: Deno.Kv, index: RegisteredIds): void {
  if (behindChecks.has(kv)) return;
  const check = withMasterDataLock(kv, async () => {
    if (index.lookup(await masterDataStamp(kv), []) !== undefined) return;
    index.rebuild({
      // Under the lock: no change of this process is between its commit and its report.
      versionstamp: () => withMasterDataLock(kv, () => masterDataStamp(kv)),
      ids: async function* () {
        for await (const e of kv.list(KEYS.marketLocations(), { batchSize: 1000 })) {
          yield e.key[1] as string;
        }
      },
    });
  }).catch(() => {}) // the store went away: the lookups keep reading it
    .finally(() => behindChecks.delete(kv));
  behindChecks.set(kv, check);
}

/** Resolves when no index build of this store runs any more (call before closing the store). */
export async function marketLocationIndexSettled(kv: Deno.Kv): Promise<void> {
  await behindChecks.get(kv);
  await idIndexes.get(kv)?.settled();
}
