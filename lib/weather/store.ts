/**
 * Stored weather (docs/weather.md, "Storage"): every delivery keeps the instant it was received.
 * Per point and delivery day (Europe/Berlin, 92/96/100 quarter-hours) each delivery that brings
 * something new is one **version** under `KEYS.weatherVersion(day, point, receivedMs)`: the
 * quarter-hour values it carried, three packed `Float64Array`s (`NaN` = not in this delivery;
 * 2.4 KiB at most, Deno KV keeps them as raw bytes). Older versions stay: a reader asking "as
 * known at T" (`./read.ts`) takes per quarter-hour the newest value received before T.
 *
 * A delivery whose every value equals the newest known one writes no version (posting the same
 * answer twice changes nothing and says so). Two deliveries received in the same millisecond for
 * the same point and day make one version, the later one's values winning. Everything is checked
 * before this is called; the writes go in atomics of at most `maxChecks` versions, each version's
 * key checked as read. This module owns the key.
 * @module
 */
import { deliveryDay, localDayOf } from "../domain/delivery_day.ts";
import { getManyChunked, maxChecks, retryKv } from "../store/kv.ts";
import { KEYS } from "../store/keys.ts";
import { composeDay, type WeatherVersion } from "./read.ts";
import { QH_MS, type QuarterHourSeries, type Variable, VARIABLES } from "./samples.ts";

/** What storing a delivery did, counted in quarter-hours (of a point) that carried a value. */
export interface StoreOutcome {
  /** Quarter-hours none of whose delivered variables had a value before. */
  added: number;
  /** Quarter-hours where a delivered value differs from the newest one known before. */
  changed: number;
  /** Quarter-hours whose every delivered value was known already. */
  unchanged: number;
  /** Versions written (a point's delivery day with anything new). */
  versions: number;
  /** Delivery days touched (local dates), in order. */
  days: string[];
}

/** One point's part of a delivery within one delivery day. */
interface Piece {
  day: string;
  point: string;
  values: Record<Variable, Float64Array>;
}

/** Pieces read at once when comparing with what is known. */
const CONCURRENT_READS = 32;

/**
 * Stores checked quarter-hour series received at `receivedMs`.
 * @param source format, route or file and caller, kept with each version
 * @throws {import("../store/kv.ts").KvContentionError} when a write stayed contended (the versions
 *   written before it stay; sending the delivery again stores the rest and changes nothing else)
 */
export async function storeWeather(
  kv: Deno.Kv,
  series: readonly QuarterHourSeries[],
  receivedMs: number,
  source: string,
): Promise<StoreOutcome> {
  const pieces = series.flatMap(piecesByDay);
  const out: StoreOutcome = { added: 0, changed: 0, unchanged: 0, versions: 0, days: [] };
  const toWrite: Piece[] = [];
  for (let i = 0; i < pieces.length; i += CONCURRENT_READS) {
    const part = pieces.slice(i, i + CONCURRENT_READS);
    const known = await Promise.all(part.map((p) => composeDay(kv, p.day, p.point, undefined)));
    part.forEach((p, k) => {
      const c = compare(p, known[k].values);
      out.added += c.added;
      out.changed += c.changed;
      out.unchanged += c.unchanged;
      if (c.added || c.changed) toWrite.push(p);
    });
  }
  const step = Math.max(1, maxChecks(kv));
  for (let i = 0; i < toWrite.length; i += step) {
    await writeVersions(kv, toWrite.slice(i, i + step), receivedMs, source);
  }
  out.versions = toWrite.length;
  out.days = [...new Set(pieces.map((p) => p.day))].sort();
  return out;
}

/** A series cut into delivery days; days without any value are left out. */
function piecesByDay(s: QuarterHourSeries): Piece[] {
  const out: Piece[] = [];
  const n = s.values.temperature_c.length;
  for (let i = 0; i < n;) {
    const ms = s.start + i * QH_MS;
    const d = deliveryDay(localDayOf(ms));
    const first = (ms - d.start.epochMilliseconds) / QH_MS;
    const len = d.quarterHours.length;
    const count = Math.min(n - i, len - first);
    const values = {} as Record<Variable, Float64Array>;
    let any = false;
    for (const v of VARIABLES) {
      const a = new Float64Array(len).fill(NaN);
      a.set(s.values[v].subarray(i, i + count), first);
      values[v] = a;
      any ||= a.some((x) => !Number.isNaN(x));
    }
    if (any) out.push({ day: d.day, point: s.point, values });
    i += count;
  }
  return out;
}

/** Counts a piece's quarter-hours against the newest known values of its day. */
function compare(p: Piece, known: Record<Variable, Float64Array>) {
  let added = 0, changed = 0, unchanged = 0;
  const len = p.values.temperature_c.length;
  for (let i = 0; i < len; i++) {
    let given = 0, wasKnown = 0, same = 0;
    for (const v of VARIABLES) {
      const x = p.values[v][i];
      if (Number.isNaN(x)) continue;
      given++;
      const y = known[v][i];
      if (Number.isNaN(y)) continue;
      wasKnown++;
      if (x === y) same++;
    }
    if (given === 0) continue;
    if (same === given) unchanged++;
    else if (wasKnown === 0) added++;
    else changed++;
  }
  return { added, changed, unchanged };
}

/** Writes versions in one atomic; a version already stored at the same instant is merged. */
async function writeVersions(
  kv: Deno.Kv,
  pieces: Piece[],
  receivedMs: number,
  source: string,
): Promise<void> {
  const keys = pieces.map((p) => KEYS.weatherVersion(p.day, p.point, receivedMs));
  const at = new Date(receivedMs).toISOString();
  await retryKv(`store weather received at ${at}`, async () => {
    const entries = await getManyChunked<WeatherVersion>(kv, keys);
    const op = kv.atomic();
    pieces.forEach((p, k) => {
      const prev = entries[k].value;
      const value: WeatherVersion = {
        temperature_c: merged(prev?.temperature_c, p.values.temperature_c),
        ghi_w_m2: merged(prev?.ghi_w_m2, p.values.ghi_w_m2),
        wind_speed_m_s: merged(prev?.wind_speed_m_s, p.values.wind_speed_m_s),
        received_at: at,
        source: prev ? `${prev.source}; ${source}` : source,
      };
      op.check(entries[k]).set(keys[k], value);
    });
    return (await op.commit()).ok ? true : undefined;
  });
}

/** `next` where it has a value, else `prev`. */
function merged(prev: Float64Array | undefined, next: Float64Array): Float64Array {
  if (!prev) return next;
  return next.map((x, i) => Number.isNaN(x) ? prev[i] : x);
}
