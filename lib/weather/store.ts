/**
 * Stored weather (docs/weather.md, "Storage"): every delivery keeps the instant it was received.
 * Per point and delivery day (Europe/Berlin, 92/96/100 quarter-hours) each delivery that brings
 * something new is one **version** under `KEYS.weatherVersion(day, point, receivedMs)`: the
 * quarter-hour values it carried, three packed `Float64Array`s (`NaN` = not in this delivery;
 * 2.4 KiB at most, Deno KV keeps them as raw bytes). Older versions stay: a reader asking "as
 * known at T" (`./read.ts`) takes per quarter-hour the newest value received before T. Beside
 * them, `KEYS.weatherLatest(day, point)` holds the newest value of each quarter-hour over all
 * versions and when it was received (4.8 KiB at most), written in the same atomic as each
 * version: what a reader of "now" gets in one read, and what a new delivery is compared with.
 *
 * A delivery whose every value equals the newest known one writes nothing (posting the same
 * answer twice changes nothing and says so). Two deliveries received in the same millisecond for
 * the same point and day make one version, the later one's values winning. Everything is checked
 * before this is called; the writes go in atomics of at most half of `maxChecks` days, the version
 * and the latest record of each checked as read. This module owns both keys.
 * @module
 */
import { deliveryDay, localDayOf } from "../domain/delivery_day.ts";
import { getManyChunked, maxChecks, retryKv } from "../store/kv.ts";
import { KEYS } from "../store/keys.ts";
import { emptyDay, type WeatherLatest, type WeatherVersion } from "./read.ts";
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
  /** Points with anything new (a version written), in order. */
  changed_points: string[];
}

/** One point's part of a delivery within one delivery day. */
interface Piece {
  day: string;
  point: string;
  values: Record<Variable, Float64Array>;
}

/**
 * Stores checked quarter-hour series received at `receivedMs`.
 * @param source format, route or file and caller, kept with each version
 * @throws {import("../store/kv.ts").KvContentionError} when a write stayed contended (the days
 *   written before it stay; sending the delivery again stores the rest and changes nothing else)
 */
export async function storeWeather(
  kv: Deno.Kv,
  series: readonly QuarterHourSeries[],
  receivedMs: number,
  source: string,
): Promise<StoreOutcome> {
  const pieces = series.flatMap(piecesByDay);
  const out: StoreOutcome = {
    added: 0,
    changed: 0,
    unchanged: 0,
    versions: 0,
    days: [],
    changed_points: [],
  };
  const changedPoints = new Set<string>();
  const step = Math.max(1, Math.floor(maxChecks(kv) / 2));
  for (let i = 0; i < pieces.length; i += step) {
    const counts = await writePieces(kv, pieces.slice(i, i + step), receivedMs, source);
    out.added += counts.added;
    out.changed += counts.changed;
    out.unchanged += counts.unchanged;
    out.versions += counts.versions;
    for (const point of counts.points) changedPoints.add(point);
  }
  out.days = [...new Set(pieces.map((p) => p.day))].sort();
  out.changed_points = [...changedPoints].sort();
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

/**
 * Compares pieces with their days' latest records and, in one atomic, writes a version and the
 * latest record of each that brings anything new; a version stored at the same instant is merged.
 */
async function writePieces(
  kv: Deno.Kv,
  pieces: Piece[],
  receivedMs: number,
  source: string,
): Promise<Omit<StoreOutcome, "days" | "changed_points"> & { points: string[] }> {
  const at = new Date(receivedMs).toISOString();
  const versionKeys = pieces.map((p) => KEYS.weatherVersion(p.day, p.point, receivedMs));
  const latestKeys = pieces.map((p) => KEYS.weatherLatest(p.day, p.point));
  return await retryKv(`store weather received at ${at}`, async () => {
    const [versions, latests] = await Promise.all([
      getManyChunked<WeatherVersion>(kv, versionKeys),
      getManyChunked<WeatherLatest>(kv, latestKeys),
    ]);
    const counts = { added: 0, changed: 0, unchanged: 0, versions: 0, points: [] as string[] };
    const op = kv.atomic();
    pieces.forEach((p, k) => {
      const len = p.values.temperature_c.length;
      const known = latests[k].value ?? { ...emptyDay(len), newest_received_ms: -Infinity };
      const c = compare(p, known.values);
      counts.added += c.added;
      counts.changed += c.changed;
      counts.unchanged += c.unchanged;
      if (!c.added && !c.changed) return;
      counts.versions++;
      counts.points.push(p.point);
      const prev = versions[k].value;
      const version: WeatherVersion = {
        temperature_c: merged(prev?.temperature_c, p.values.temperature_c),
        ghi_w_m2: merged(prev?.ghi_w_m2, p.values.ghi_w_m2),
        wind_speed_m_s: merged(prev?.wind_speed_m_s, p.values.wind_speed_m_s),
        received_at: at,
        source: prev ? `${prev.source}; ${source}` : source,
      };
      op.check(versions[k], latests[k])
        .set(versionKeys[k], version)
        .set(latestKeys[k], newer(known, p, receivedMs));
    });
    if (counts.versions === 0) return counts; // nothing new: nothing to write
    return (await op.commit()).ok ? counts : undefined;
  });
}

/** `next` where it has a value, else `prev`. */
function merged(prev: Float64Array | undefined, next: Float64Array): Float64Array {
  if (!prev) return next;
  return next.map((x, i) => Number.isNaN(x) ? prev[i] : x);
}

/** The latest record with a piece received at `receivedMs`: per value, the later received wins. */
function newer(known: WeatherLatest, p: Piece, receivedMs: number): WeatherLatest {
  const out: WeatherLatest = {
    values: { ...known.values },
    receivedMs: { ...known.receivedMs },
    newest_received_ms: Math.max(known.newest_received_ms, receivedMs),
  };
  for (const v of VARIABLES) {
    const values = out.values[v] = known.values[v].slice();
    const received = out.receivedMs[v] = known.receivedMs[v].slice();
    p.values[v].forEach((x, i) => {
      if (Number.isNaN(x) || received[i] > receivedMs) return;
      values[i] = x;
      received[i] = receivedMs;
    });
  }
  return out;
}
