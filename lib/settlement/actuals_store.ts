/**
 * Stored actuals (docs/settlement.md, "Actuals"): metered kWh per quarter-hour of one market
 * location and delivery day (`KEYS.actuals`) and of one balancing-group sum (`KEYS.
 * balancingGroupSum`, per balancing group and balancing area). This module owns both keys.
 *
 * A later value for the same location and quarter-hour replaces the earlier one; the outcome
 * counts new, replaced and unchanged quarter-hours, so posting the same message twice changes
 * nothing and says so. Everything is checked before this is called (all or nothing at the level of
 * the input; the writes themselves go in atomics of {@link BATCH} records, each checked against a
 * concurrent writer and retried).
 *
 * Stored layout: the quarter-hour values of a record are one packed `Float64Array` (`NaN` = not
 * metered yet), which Deno KV keeps as raw bytes: a day of 100,000 locations lists about twice as
 * fast as with arrays of numbers (docs/settlement.md, "Cost"). Records written before as arrays
 * (`null` = not metered) are still read. The readers here hand out the one shape of each.
 * @module
 */
import { quarterHourCount } from "../domain/delivery_day.ts";
import { getManyChunked, getManyInRange, retryKv } from "../store/kv.ts";
import { KEYS } from "../store/keys.ts";
import { type DayRun, runsByDay } from "./day_split.ts";
import type { MeteredSeries, SeriesOwner } from "./series.ts";

/** One record as readers get it: kWh per quarter-hour of the day (`null` = not metered yet). */
export interface StoredActuals {
  owner: SeriesOwner;
  day: string;
  /** kWh per quarter-hour, in the order of the day's quarter-hours (92/96/100). */
  kwh: (number | null)[];
  /** ISO-8601 UTC instant of the last change. */
  updated_at: string;
  /** Where the last change came from (message or file, caller). */
  source: string;
}

/**
 * One record as stored and as {@link actualsBatches} hands it out: the values packed (`NaN` = no
 * value); owner and day are the key's.
 */
export interface PackedActuals {
  /** kWh per quarter-hour of the day; `NaN` where not metered yet. */
  kwh: Float64Array;
  updated_at: string;
  source: string;
}

/** The first part of the keys of balancing-group sums. */
const SUMS = KEYS.balancingGroupSum("", "", "")[0];

/** What may be stored under the keys: packed, or an array record written before the packing. */
type StoredRecord = PackedActuals | StoredActuals;

/** The values of a stored record, packed (a copy: the caller may change it). */
function packed(kwh: StoredRecord["kwh"]): Float64Array {
  if (kwh instanceof Float64Array) return kwh.slice();
  return Float64Array.from(kwh, (v) => v ?? NaN);
}

/**
 * A record as stored under `key` (`KEYS.actuals` or `KEYS.balancingGroupSum`; packed, or an array
 * record written before the packing) with its owner and day and its values as an array (`null` =
 * not metered); for readers that list the keys themselves (the archive,
 * lib/retention/actuals_archive.ts).
 */
export function unpacked(key: Deno.KvKey, rec: PackedActuals | StoredActuals): StoredActuals {
  const [kind, day, a, b] = key as string[];
  const owner: SeriesOwner = kind === SUMS
    ? { kind: "balancing_group_sum", balancing_group: a, balancing_area: b }
    : { kind: "market_location", malo_id: a };
  const kwh = rec.kwh instanceof Float64Array
    ? Array.from(rec.kwh, (v) => Number.isNaN(v) ? null : v)
    : rec.kwh;
  return { owner, day, kwh, updated_at: rec.updated_at, source: rec.source };
}

/**
 * A stored record packed (records written before the packing are packed on read). Told apart by
 * `Array.isArray`: `instanceof Float64Array` on a value the store hands out cost about 0.8 µs each
 * (80 ms of a day of 100,000 locations; docs/settlement.md, "Cost").
 */
function asPacked(rec: StoredRecord): PackedActuals {
  return Array.isArray(rec.kwh)
    ? { kwh: packed(rec.kwh), updated_at: rec.updated_at, source: rec.source }
    : rec as PackedActuals;
}

/** What storing did. */
export interface StoreOutcome {
  /** Quarter-hours that had no value before. */
  added: number;
  /** Quarter-hours whose earlier value was replaced by a different one. */
  replaced: number;
  /** Quarter-hours sent again with the value they had. */
  unchanged: number;
  /** Delivery days touched, ascending. */
  days: string[];
  /** The first 20 (owner, day) records with replaced values, for the answer. */
  replacements: { location: string; day: string; quarter_hours: number }[];
}

/** Records per atomic. */
const BATCH = 50;

/** Atomics under way at once. */
const IN_FLIGHT = 4;

const keyOf = (o: SeriesOwner, day: string): Deno.KvKey =>
  o.kind === "market_location"
    ? KEYS.actuals(day, o.malo_id)
    : KEYS.balancingGroupSum(day, o.balancing_group, o.balancing_area);

const nameOf = (o: SeriesOwner) =>
  o.kind === "market_location" ? o.malo_id : `${o.balancing_group}/${o.balancing_area}`;

/** Stores checked series. */
export async function storeActuals(
  kv: Deno.Kv,
  series: readonly MeteredSeries[],
  source: string,
  nowMs: number,
): Promise<StoreOutcome> {
  // Per (owner, day) the values to write; a later series of the same body wins.
  const parts = new Map<string, Part>();
  for (const s of series) {
    for (const r of runsByDay(s.start, s.kwh)) {
      const k = `${nameOf(s.owner)}|${r.day}`;
      const cur = parts.get(k);
      if (cur) cur.runs.push(r);
      else parts.set(k, { owner: s.owner, day: r.day, runs: [r] });
    }
  }
  const out: StoreOutcome = { added: 0, replaced: 0, unchanged: 0, days: [], replacements: [] };
  const list = [...parts.values()];
  const at = new Date(nowMs).toISOString();
  const batches: Part[][] = [];
  for (let b = 0; b < list.length; b += BATCH) batches.push(list.slice(b, b + BATCH));
  // A few batches in flight (different keys: they do not conflict), counted in batch order.
  const counted: Counted[] = new Array(batches.length);
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      const i = next++;
      counted[i] = await retryKv(`store actuals`, () => storeBatch(kv, batches[i], at, source));
    }
  };
  await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, batches.length) }, worker));
  for (const c of counted) {
    out.added += c.added;
    out.replaced += c.replaced;
    out.unchanged += c.unchanged;
    for (const r of c.replacements) {
      if (out.replacements.length < 20) out.replacements.push(r);
    }
  }
  out.days = [...new Set(list.map((p) => p.day))].sort();
  return out;
}

/** The values of one (owner, day) to write: runs of kWh, in the order of the input. */
interface Part {
  owner: SeriesOwner;
  day: string;
  runs: DayRun[];
}

/**
 * Calls `fn` with each quarter-hour index of a part once and its value (of the last run that has
 * it), in index order for one run.
 */
function forEachValue(p: Part, fn: (idx: number, v: number) => void): void {
  if (p.runs.length === 1) {
    const [{ first, values }] = p.runs;
    for (let k = 0; k < values.length; k++) fn(first + k, values[k]);
    return;
  }
  const m = new Map<number, number>();
  for (const r of p.runs) r.values.forEach((v, k) => m.set(r.first + k, v));
  m.forEach((v, idx) => fn(idx, v));
}

/** What storing one batch did. */
type Counted = Omit<StoreOutcome, "days">;

/**
 * Reads the batch's records (one range read when they are market locations of one day, as a
 * message sorted by location gives them; else 10-key reads), merges and commits them in one
 * atomic checked against each record read.
 * @returns `undefined` when a check failed (read again)
 */
async function storeBatch(
  kv: Deno.Kv,
  batch: Part[],
  at: string,
  source: string,
): Promise<Counted | undefined> {
  const day = batch[0].day;
  const ids = batch.every((p) => p.day === day && p.owner.kind === "market_location")
    ? batch.map((p) => nameOf(p.owner))
    : null;
  const entries = ids
    ? await getManyInRange<StoredRecord>(
      kv,
      (KEYS.actualsOfDay(day) as { prefix: Deno.KvKey }).prefix,
      ids,
    )
    : await getManyChunked<StoredRecord>(kv, batch.map((p) => keyOf(p.owner, p.day)));
  const op = kv.atomic();
  const c: Counted = { added: 0, replaced: 0, unchanged: 0, replacements: [] };
  batch.forEach((p, i) => {
    const e = entries[i];
    const kwh = e.value ? packed(e.value.kwh) : new Float64Array(quarterHourCount(p.day)).fill(NaN);
    let replaced = 0, changed = false;
    forEachValue(p, (idx, v) => {
      const old = kwh[idx];
      if (Number.isNaN(old)) c.added++, changed = true;
      else if (old === v) c.unchanged++;
      else replaced++, changed = true;
      kwh[idx] = v;
    });
    c.replaced += replaced;
    if (replaced) {
      c.replacements.push({ location: nameOf(p.owner), day: p.day, quarter_hours: replaced });
    }
    op.check(e);
    if (changed) {
      const rec: PackedActuals = { kwh, updated_at: at, source };
      op.set(keyOf(p.owner, p.day), rec);
    }
  });
  return (await op.commit()).ok ? c : undefined;
}

/** Every metered market location of a day (MaLo-ID → record). */
export async function actualsOfDay(kv: Deno.Kv, day: string): Promise<Map<string, StoredActuals>> {
  const out = new Map<string, StoredActuals>();
  for await (const e of kv.list<StoredRecord>(KEYS.actualsOfDay(day), { batchSize: 1000 })) {
    out.set(e.key[2] as string, unpacked(e.key, e.value));
  }
  return out;
}

/**
 * The metered market locations of a day in batches of `size` (MaLo-ID order), for readers that
 * work through a day of 100,000 locations without holding every record at once. Packed: `NaN`
 * where a quarter-hour has no value.
 */
export async function* actualsBatches(
  kv: Deno.Kv,
  day: string,
  size = 1000,
): AsyncGenerator<[string, PackedActuals][]> {
  let batch: [string, PackedActuals][] = [];
  // A plain walk: asking for the next entry before handing out a batch (so the store would read
  // ahead while the caller sums) measured slower on one core (docs/settlement.md, "Cost").
  for await (const e of kv.list<StoredRecord>(KEYS.actualsOfDay(day), { batchSize: size })) {
    batch.push([e.key[2] as string, asPacked(e.value)]);
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length) yield batch;
}

/** Every balancing-group sum of a day. */
export async function balancingGroupSumsOfDay(kv: Deno.Kv, day: string): Promise<StoredActuals[]> {
  const out: StoredActuals[] = [];
  for await (const e of kv.list<StoredRecord>(KEYS.balancingGroupSumsOfDay(day))) {
    out.push(unpacked(e.key, e.value));
  }
  return out;
}
