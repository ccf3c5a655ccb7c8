/**
 * Stored actuals (docs/actuals.md): metered kWh per quarter-hour of one market
 * location and delivery day (`KEYS.actuals`), of one balancing-group sum (`KEYS.
 * balancingGroupSum`, per balancing group and balancing area) and of one MaBiS metering point's
 * sum (`KEYS.meteringPointSum`). This module owns the three keys.
 *
 * A later value for the same location and quarter-hour replaces the earlier one, with its kind
 * (true, substitute, provisional, missing) as `./actuals_merge.ts` says; the outcome counts new,
 * replaced and unchanged quarter-hours, so posting the same message twice changes nothing and
 * says so. Everything is checked before this is called (all or nothing at the level of
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
import {
  type ActualsFacts,
  COUNTS,
  type MergeCounts,
  mergeRecord,
  noCounts,
  type PackedActuals,
  type Part,
} from "./actuals_merge.ts";
import { runsByDay } from "./day_split.ts";
import type { MeteredSeries, SeriesOwner } from "./series.ts";

/** One record as readers get it: kWh per quarter-hour of the day (`null` = not metered yet). */
export interface StoredActuals extends ActualsFacts {
  owner: SeriesOwner;
  day: string;
  /** kWh per quarter-hour, in the order of the day's quarter-hours (92/96/100). */
  kwh: (number | null)[];
}

export type { PackedActuals } from "./actuals_merge.ts";

/** The first part of the keys of balancing-group sums and of metering-point sums. */
const SUMS = KEYS.balancingGroupSum("", "", "")[0];
const POINT_SUMS = KEYS.meteringPointSum("", "")[0];

/** What may be stored under the keys: packed, or an array record written before the packing. */
type StoredRecord = PackedActuals | StoredActuals;

/** The values of a stored record, packed (a copy: the caller may change it). */
function packed(kwh: StoredRecord["kwh"]): Float64Array {
  if (kwh instanceof Float64Array) return kwh.slice();
  return Float64Array.from(kwh, (v) => v ?? NaN);
}

/**
 * A record as stored under `key` (`KEYS.actuals`, `KEYS.balancingGroupSum` or
 * `KEYS.meteringPointSum`; packed, or an array record written before the packing) with its owner
 * and day and its values as an array (`null` = not metered); for readers that list the keys
 * themselves (the archive, lib/retention/actuals_archive.ts).
 */
export function unpacked(key: Deno.KvKey, rec: PackedActuals | StoredActuals): StoredActuals {
  const [kind, day, a, b] = key as string[];
  const owner: SeriesOwner = kind === SUMS
    ? { kind: "balancing_group_sum", balancing_group: a, balancing_area: b }
    : kind === POINT_SUMS
    ? { kind: "metering_point_sum", metering_point: a }
    : { kind: "market_location", malo_id: a };
  const kwh = rec.kwh instanceof Float64Array
    ? Array.from(rec.kwh, (v) => Number.isNaN(v) ? null : v)
    : rec.kwh;
  const out: StoredActuals = { owner, day, kwh, updated_at: rec.updated_at, source: rec.source };
  if (rec.quality) out.quality = rec.quality;
  if (rec.substitutes) out.substitutes = rec.substitutes;
  if (rec.version) out.version = rec.version;
  if (rec.sender) out.sender = rec.sender;
  return out;
}

/**
 * A stored record packed (records written before the packing are packed on read). Told apart by
 * `Array.isArray`: `instanceof Float64Array` on a value the store hands out cost about 0.8 µs each
 * (80 ms of a day of 100,000 locations; docs/settlement.md, "Cost").
 */
function asPacked(rec: StoredRecord): PackedActuals {
  return Array.isArray(rec.kwh) ? { ...rec, kwh: packed(rec.kwh) } : rec as PackedActuals;
}

/** What storing did. */
export interface StoreOutcome extends MergeCounts {
  /** Delivery days touched, ascending. */
  days: string[];
  /** The first 20 (owner, day) records with replaced values, for the answer. */
  replacements: { location: string; day: string; quarter_hours: number }[];
  /**
   * Records not changed because what arrived is older than what is stored (a monthly settlement
   * series of an older version, or a daily sum after a monthly one); the first 20.
   */
  older_versions: { location: string; day: string; version: string | null; stored: string }[];
}

/** Records per atomic. */
const BATCH = 50;

/** Atomics under way at once. */
const IN_FLIGHT = 4;

const keyOf = (o: SeriesOwner, day: string): Deno.KvKey =>
  o.kind === "market_location"
    ? KEYS.actuals(day, o.malo_id)
    : o.kind === "metering_point_sum"
    ? KEYS.meteringPointSum(day, o.metering_point)
    : KEYS.balancingGroupSum(day, o.balancing_group, o.balancing_area);

const nameOf = (o: SeriesOwner) =>
  o.kind === "market_location"
    ? o.malo_id
    : o.kind === "metering_point_sum"
    ? o.metering_point
    : `${o.balancing_group}/${o.balancing_area}`;

/** Stores checked series (merged per `./actuals_merge.ts`). */
export async function storeActuals(
  kv: Deno.Kv,
  series: readonly MeteredSeries[],
  source: string,
  nowMs: number,
): Promise<StoreOutcome> {
  // Per (owner, day) the runs to merge, in the order of the input: a later series wins.
  const parts = new Map<string, Part[]>();
  for (const s of series) {
    for (const r of runsByDay(s.start, s.kwh)) {
      const k = `${s.owner.kind}|${nameOf(s.owner)}|${r.day}`;
      const cur = parts.get(k);
      const last = cur?.at(-1);
      if (last && last.series === s) last.runs.push(r);
      else if (cur) cur.push({ series: s, day: r.day, runs: [r] });
      else parts.set(k, [{ series: s, day: r.day, runs: [r] }]);
    }
  }
  const out: StoreOutcome = { ...noCounts(), days: [], replacements: [], older_versions: [] };
  const list = [...parts.values()];
  const at = new Date(nowMs).toISOString();
  const batches: Part[][][] = [];
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
    for (const k of COUNTS) out[k] += c[k];
    for (const r of c.replacements) if (out.replacements.length < 20) out.replacements.push(r);
    for (const r of c.older) if (out.older_versions.length < 20) out.older_versions.push(r);
  }
  out.days = [...new Set(list.map((p) => p[0].day))].sort();
  return out;
}

/** What storing one batch did. */
interface Counted extends MergeCounts {
  replacements: StoreOutcome["replacements"];
  older: StoreOutcome["older_versions"];
}

/**
 * Reads the batch's records (one range read when they are market locations of one day, as a
 * message sorted by location gives them; else 10-key reads), merges and commits them in one
 * atomic checked against each record read.
 * @returns `undefined` when a check failed (read again)
 */
async function storeBatch(
  kv: Deno.Kv,
  batch: Part[][],
  at: string,
  source: string,
): Promise<Counted | undefined> {
  const day = batch[0][0].day;
  const owners = batch.map((p) => p[0].series.owner);
  const ids = batch.every((p, i) => p[0].day === day && owners[i].kind === "market_location")
    ? owners.map(nameOf)
    : null;
  const entries = ids
    ? await getManyInRange<StoredRecord>(
      kv,
      (KEYS.actualsOfDay(day) as { prefix: Deno.KvKey }).prefix,
      ids,
    )
    : await getManyChunked<StoredRecord>(kv, batch.map((p, i) => keyOf(owners[i], p[0].day)));
  const op = kv.atomic();
  const c: Counted = { ...noCounts(), replacements: [], older: [] };
  batch.forEach((parts, i) => {
    const e = entries[i], d = parts[0].day, owner = owners[i];
    let rec: PackedActuals | null = e.value ? asPacked(e.value) : null;
    let written = false, replaced = 0;
    for (const part of parts) {
      const m = mergeRecord(rec, part, quarterHourCount(d), at, source);
      for (const k of COUNTS) c[k] += m.counts[k];
      replaced += m.replaced;
      if (m.older) c.older.push({ location: nameOf(owner), day: d, ...m.older });
      if (m.record) rec = m.record, written = true;
    }
    if (replaced) c.replacements.push({ location: nameOf(owner), day: d, quarter_hours: replaced });
    op.check(e);
    if (written) op.set(keyOf(owner, d), rec);
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

/** Every balancing-group sum of a day (`LOC+237`), and every MaBiS metering-point sum. */
export async function balancingGroupSumsOfDay(kv: Deno.Kv, day: string): Promise<StoredActuals[]> {
  const out: StoredActuals[] = [];
  for (const sel of [KEYS.balancingGroupSumsOfDay(day), KEYS.meteringPointSumsOfDay(day)]) {
    for await (const e of kv.list<StoredRecord>(sel)) out.push(unpacked(e.key, e.value));
  }
  return out;
}

/**
 * The records of the market locations `ids` on `day` (MaLo-ID order reads fastest: one range
 * read), packed, in the order of `ids`; `null` where a location has none. For the learned
 * forecasts (lib/pipeline/learned_inputs.ts), which read a few weeks of a batch of locations.
 */
export async function actualsOfLocations(
  kv: Deno.Kv,
  day: string,
  ids: string[],
): Promise<(PackedActuals | null)[]> {
  const prefix = (KEYS.actualsOfDay(day) as { prefix: Deno.KvKey }).prefix;
  const entries = await getManyInRange<StoredRecord>(kv, prefix, ids);
  return entries.map((e) => e.value ? asPacked(e.value) : null);
}
