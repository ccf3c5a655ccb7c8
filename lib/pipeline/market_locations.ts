/**
 * Market locations: the customer's master data (docs/pipeline.md, "Market locations"), stored under
 * `["market_locations", <malo_id>]`.
 * @module
 */
import type { z } from "zod";
import { MarketLocationInput } from "../wire/market_locations.ts";
import { addDays, deliveryDay, localDayOf } from "../domain/delivery_day.ts";
import { getManyInRange, retryKv, withStoreLock } from "../store/kv.ts";
import {
  applyChanges,
  type ProfileClassTable,
  readClassTable,
  writeClassTable,
} from "./profile_classes.ts";
import { type DayState, inputChanged, updateDay, writeDay } from "./day_state.ts";
import { KEYS } from "../store/keys.ts";

/** A stored market location. */
export interface MarketLocation extends z.infer<typeof MarketLocationInput> {
  /** 11-digit MaLo-ID. */
  malo_id: string;
  /** ISO-8601 UTC instant of the last change. */
  updated_at: string;
}

const key = KEYS.marketLocation;
const MASTER_VERSION = KEYS.masterDataVersion;

/** Counter bumped by every change of master data (0 = never any market location). */
export async function masterDataVersion(kv: Deno.Kv): Promise<number> {
  const v = (await kv.get<Deno.KvU64>(MASTER_VERSION)).value;
  return v ? Number(v.value) : 0;
}

/** Reads one market location. */
export async function getMarketLocation(
  kv: Deno.Kv,
  id: string,
): Promise<MarketLocation | null> {
  return (await kv.get<MarketLocation>(key(id))).value;
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

/** Stored fields that matter to the pipeline (everything but `updated_at`) are the same. */
function sameContent(a: MarketLocation | null, b: MarketLocation): boolean {
  return a !== null && a.malo_id === b.malo_id && a.control_area === b.control_area &&
    a.direction === b.direction && a.standard_load_profile === b.standard_load_profile &&
    a.annual_kwh === b.annual_kwh && a.name === b.name;
}

/**
 * Day states that a master-data change can make stale: gate closure still ahead at `nowMs`, and
 * some step already recorded (a day nothing has consumed yet cannot be stale). Date order.
 */
async function openDays(
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

/** Open days marked stale in the same atomic as the change (KV allows 100 checks per atomic). */
const DAYS_IN_ATOMIC = 90;

/** One market location's change: its entry as read, and what it becomes (`null`: deleted). */
interface LocationChange {
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
        tableCache.set(kv, { stamp: master.versionstamp, table: stored.table });
      }
      return { table: stored.table, master };
    }
    const changes: [null, MarketLocation][] = [];
    for await (const e of kv.list<MarketLocation>(KEYS.marketLocations(), { batchSize: 1000 })) {
      changes.push([null, e.value]);
    }
    const table = applyChanges({ classes: {} }, changes);
    const op = writeClassTable(kv.atomic().check(master), stored.table, table, current);
    return (await op.commit()).ok ? { table, master } : undefined; // changed meanwhile: again
  });
}

/** Per store: the class table of the master-data version entry with versionstamp `stamp`. */
const tableCache = new WeakMap<Deno.Kv, { stamp: string; table: ProfileClassTable }>();

/**
 * Commits a master-data change read at `read` (the class table and master-data version read
 * *before* the locations were): the location writes and deletes (with a check of each entry when
 * `checkEach`; KV allows 100 checks per atomic, so a batch does without), the profile class table
 * updated, and the master-data version checked and bumped — so any concurrent change, also from
 * another replica, makes this one read again and no update of the table is lost. With `change`,
 * the open days (see {@link MasterDataChange}) are marked stale in the same atomic — the nearest
 * {@link DAYS_IN_ATOMIC} of them; any further ones (far-future days run by hand) right after, one
 * read-check-commit each. The caller holds the master-data lock ({@link withMasterDataLock}).
 * @returns false when a check failed (read again and retry)
 */
async function commitMasterData(
  kv: Deno.Kv,
  read: ClassTableRead,
  changes: LocationChange[],
  checkEach: boolean,
  atMs: number,
  change: MasterDataChange | undefined,
): Promise<boolean> {
  const op = kv.atomic();
  for (const c of changes) {
    if (checkEach) op.check(c.entry);
    if (c.next) op.set(c.entry.key, c.next);
    else op.delete(c.entry.key);
  }
  const next = (read.master.value ? Number(read.master.value.value) : 0) + 1;
  op.check(read.master).set(MASTER_VERSION, new Deno.KvU64(BigInt(next)));
  const table = applyChanges(read.table, changes.map((c) => [c.entry.value, c.next]));
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
  for (const e of days.slice(0, DAYS_IN_ATOMIC)) writeDay(op, e, bump(e.value));
  const r = await op.commit();
  if (!r.ok) return false;
  tableCache.set(kv, { stamp: r.versionstamp, table }); // the version entry now has this stamp
  for (const e of days.slice(DAYS_IN_ATOMIC)) {
    await updateDay(kv, e.key[1] as string, (s) => Promise.resolve({ state: bump(s), result: 0 }));
  }
  return true;
}

/**
 * Runs a master-data change holding this process's master-data lock: changes from one process
 * never conflict on the class table (other processes' changes fail the check and are retried).
 */
function withMasterDataLock<T>(kv: Deno.Kv, fn: () => Promise<T>): Promise<T> {
  return withStoreLock(kv, "master data", fn);
}

/**
 * Creates or replaces a market location; returns it and whether it was new. Re-sending the same
 * fields changes nothing (the stored `updated_at` stays, no day turns stale).
 * @param atMs instant of the change, ms since the epoch
 * @param change when given, open delivery days are marked stale (see {@link MasterDataChange})
 * @throws {KvContentionError} when the key stayed contended through every retry
 */
export async function putMarketLocation(
  kv: Deno.Kv,
  id: string,
  input: z.infer<typeof MarketLocationInput>,
  atMs: number,
  change?: MasterDataChange,
): Promise<{ location: MarketLocation; created: boolean }> {
  const location: MarketLocation = {
    malo_id: id,
    ...input,
    updated_at: new Date(atMs).toISOString(),
  };
  return await withMasterDataLock(kv, () =>
    retryKv(`put market location ${id}`, async () => {
      const read = await profileClasses(kv); // before the location: see commitMasterData
      const prev = await kv.get<MarketLocation>(key(id));
      if (sameContent(prev.value, location)) return { location: prev.value!, created: false };
      const ok = await commitMasterData(
        kv,
        read,
        [{ entry: prev, next: location }],
        true,
        atMs,
        change,
      );
      return ok ? { location, created: prev.value === null } : undefined;
    }));
}

/**
 * Creates or replaces several market locations in one atomic (all or nothing). Items whose
 * fields are unchanged are left alone.
 * @param change when given, open delivery days are marked stale (see {@link MasterDataChange})
 * @returns how many were new, replaced (changed) and unchanged
 * @throws {KvContentionError} when the keys stayed contended through every retry
 */
export async function putMarketLocations(
  kv: Deno.Kv,
  items: (z.infer<typeof MarketLocationInput> & { malo_id: string })[],
  atMs: number,
  change?: MasterDataChange,
): Promise<{ created: number; replaced: number; unchanged: number }> {
  const at = new Date(atMs).toISOString();
  return await withMasterDataLock(kv, () =>
    retryKv("put market locations", async () => {
      const read = await profileClasses(kv); // before the locations: see commitMasterData
      // The open days are read beside the locations (both after the version).
      const days = change ? openDays(kv, atMs, change.gateClosureLocalTime) : Promise.resolve([]);
      days.catch(() => {}); // awaited in commitMasterData, or dropped when nothing changed
      const prev = await getManyInRange<MarketLocation>(
        kv,
        KEYS.marketLocationPrefix,
        items.map((it) => it.malo_id),
      );
      let created = 0, replaced = 0, unchanged = 0;
      const changes: LocationChange[] = [];
      items.forEach((item, i) => {
        const next: MarketLocation = { ...item, updated_at: at };
        if (sameContent(prev[i].value, next)) {
          unchanged++;
          return;
        }
        if (prev[i].value === null) created++;
        else replaced++;
        changes.push({ entry: prev[i], next });
      });
      if (!changes.length) return { created, replaced, unchanged };
      // No check per location (KV allows 100 checks per atomic): the class table's check makes
      // the batch read again when anything changed master data meanwhile.
      const ok = await commitMasterData(
        kv,
        { ...read, openDays: days },
        changes,
        false,
        atMs,
        change,
      );
      return ok ? { created, replaced, unchanged } : undefined;
    }));
}

/**
 * Deletes a market location; true when it existed.
 * @param change when given, open delivery days are marked stale (see {@link MasterDataChange})
 * @throws {KvContentionError} when the key stayed contended through every retry
 */
export async function deleteMarketLocation(
  kv: Deno.Kv,
  id: string,
  atMs: number = Date.now(),
  change?: MasterDataChange,
): Promise<boolean> {
  return await withMasterDataLock(kv, () =>
    retryKv(`delete market location ${id}`, async () => {
      const read = await profileClasses(kv); // before the location: see commitMasterData
      const prev = await kv.get<MarketLocation>(key(id));
      if (prev.value === null) return false;
      const ok = await commitMasterData(
        kv,
        read,
        [{ entry: prev, next: null }],
        true,
        atMs,
        change,
      );
      return ok ? true : undefined;
    }));
}

/**
 * Lists market locations in MaLo-ID order.
 * @param opts `limit` (all when absent), `after` a MaLo-ID to continue after
 */
export async function listMarketLocations(
  kv: Deno.Kv,
  opts: { limit?: number; after?: string } = {},
): Promise<MarketLocation[]> {
  const out: MarketLocation[] = [];
  const selector = opts.after ? KEYS.marketLocations(opts.after) : KEYS.marketLocations();
  for await (
    const e of kv.list<MarketLocation>(selector, { limit: opts.limit, batchSize: 1000 })
  ) out.push(e.value);
  return out;
}

/**
 * The registered MaLo-IDs among `ids` (a batch of up to 500): 10-key reads, all concurrently.
 */
export async function registeredMarketLocations(
  kv: Deno.Kv,
  ids: string[],
): Promise<Set<string>> {
  const out = new Set<string>();
  const entries = await getManyInRange<MarketLocation>(kv, KEYS.marketLocationPrefix, ids);
  for (const e of entries) if (e.value !== null) out.add(e.value.malo_id);
  return out;
}

/**
 * The market locations `ids` (any number), `null` where one is not registered; 10-key reads, all
 * concurrently.
 */
export async function marketLocationsByIds(
  kv: Deno.Kv,
  ids: string[],
): Promise<(MarketLocation | null)[]> {
  const entries = await getManyInRange<MarketLocation>(kv, KEYS.marketLocationPrefix, ids);
  return entries.map((e) => e.value);
}
