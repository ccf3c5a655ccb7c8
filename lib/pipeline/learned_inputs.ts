/**
 * What the learned forecasts of a batch of metered market locations read (docs/forecasting.md,
 * "In the service"): their stored actuals over a run of days (one range read per day for the
 * batch), the weather of their points as known at an instant (one read per point and instant,
 * shared by the locations of a point), and the customer forecasts of a run of days. Each value
 * keeps the instant it became known — actuals their record's `updated_at`, weather its received
 * instant, a customer forecast its `received_at` — so the model reads only what was known before
 * its cut-off (`viewAt`, lib/forecasting/inputs.ts).
 * @module
 */
import { addDays, deliveryDay } from "../domain/delivery_day.ts";
import type { LoadRun, LoadValue, Site, WeatherRun } from "../forecasting/inputs.ts";
import { localDay } from "../forecasting/local_days.ts";
import type { CustomerValue } from "../forecasting/correction.ts";
import { actualsOfLocations, type PackedActuals } from "../settlement/actuals_store.ts";
import { weatherAsOf } from "../weather/read.ts";
import { QH_MS } from "../weather/samples.ts";
import { customerForecastsOf, type ValuesForecast } from "./forecasts.ts";

/** The Berlin days `first` … `last`. */
export function dayRange(first: string, last: string): string[] {
  const out: string[] = [];
  for (let d = first; d <= last; d = addDays(d, 1)) out.push(d);
  return out;
}

/** Per location (MaLo-ID), per day: a batch's records of one kind. */
export type ByLocationDay<T> = Map<string, Map<string, T>>;

/** Reads the actuals of `ids` on every day of `days`, 4 days at once. */
export async function readActuals(
  kv: Deno.Kv,
  ids: string[],
  days: readonly string[],
): Promise<ByLocationDay<PackedActuals>> {
  return await byDay(days, ids, (day) => actualsOfLocations(kv, day, ids));
}

/** Reads the customer forecasts of `ids` on every day of `days`, 4 days at once. */
export async function readCustomerForecasts(
  kv: Deno.Kv,
  ids: string[],
  days: readonly string[],
): Promise<ByLocationDay<ValuesForecast>> {
  return await byDay(days, ids, (day) => customerForecastsOf(kv, day, ids));
}

async function byDay<T>(
  days: readonly string[],
  ids: string[],
  read: (day: string) => Promise<(T | null)[]>,
): Promise<ByLocationDay<T>> {
  const out: ByLocationDay<T> = new Map(ids.map((id) => [id, new Map()]));
  for (let i = 0; i < days.length; i += 4) {
    const part = days.slice(i, i + 4);
    const got = await Promise.all(part.map(read));
    part.forEach((day, k) =>
      got[k].forEach((v, j) => {
        if (v !== null) out.get(ids[j])!.set(day, v);
      })
    );
  }
  return out;
}

/**
 * A location's actuals as the model's load, one run per stored day: kWh × 4 = average kW per
 * quarter-hour, each day known from its record's `updated_at` (as {@link loadValues}, without an
 * object per value).
 */
export function loadRuns(records: ReadonlyMap<string, PackedActuals>): LoadRun[] {
  const out: LoadRun[] = [];
  for (const [day, rec] of records) {
    out.push({
      startMs: localDay(day).startMs,
      values: rec.kwh,
      scale: 4,
      knownAtMs: Date.parse(rec.updated_at),
    });
  }
  return out;
}

/**
 * A location's actuals as the model's load: average kW per quarter-hour (kWh × 4), each known
 * from its record's `updated_at` (when it was received; a later correction of the day moves the
 * whole day's instant — an earlier cut-off then does without that day, never with its new values).
 */
export function loadValues(records: ReadonlyMap<string, PackedActuals>): LoadValue[] {
  const out: LoadValue[] = [];
  for (const [day, rec] of records) {
    const start = deliveryDay(day).start.epochMilliseconds;
    const knownAtMs = Date.parse(rec.updated_at);
    const kwh = rec.kwh;
    for (let i = 0; i < kwh.length; i++) {
      const v = kwh[i];
      if (v === v) out.push({ startMs: start + i * QH_MS, value: v * 4, knownAtMs });
    }
  }
  return out;
}

/** A location's customer forecasts as the correction reads them (kW, received at). */
export function customerValues(records: ReadonlyMap<string, ValuesForecast>): CustomerValue[] {
  const out: CustomerValue[] = [];
  for (const [day, f] of records) {
    const start = deliveryDay(day).start.epochMilliseconds;
    const receivedAtMs = Date.parse(f.received_at);
    for (let i = 0; i < f.values.length; i++) {
      out.push({ startMs: start + i * QH_MS, value: f.values[i], receivedAtMs });
    }
  }
  return out;
}

/** Where the sun is taken for a location whose weather point is a name or absent: mid-Germany. */
export const DEFAULT_SITE = { latitude: 51.16, longitude: 10.45 };

/**
 * The site of a location: its weather point's coordinate (`lat,lon`), else the middle of
 * Germany (a named point has no coordinate; the sun's elevation there is at most about 25
 * minutes off at the borders), with its holiday region.
 */
export function siteOf(weatherPoint: string | undefined, holidayRegion: string): Site {
  const m = weatherPoint ? /^(-?\d+\.\d+),(-?\d+\.\d+)$/.exec(weatherPoint) : null;
  return m
    ? { latitude: Number(m[1]), longitude: Number(m[2]), holidayRegion }
    : { ...DEFAULT_SITE, holidayRegion };
}

/**
 * Weather of points as known at instants over UTC quarter-hours `[fromMs, toMs)`, each as one
 * {@link WeatherRun} (five typed arrays, not an object per quarter-hour). The reads as known at
 * the cut-off are kept for the whole refresh (one read per point serves all its locations: a read
 * costs 5–20 ms, docs/weather.md "Cost"); a replay's read of an earlier instant is not kept (each
 * is asked for once).
 */
export class WeatherCache {
  readonly #kv: Deno.Kv;
  readonly #read = new Map<string, Promise<readonly WeatherRun[]>>();

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  /** The point's quarter-hours in `[fromMs, toMs)`, as known at `asOfMs`. */
  asOf(
    point: string,
    asOfMs: number,
    fromMs: number,
    toMs: number,
    keep = true,
  ): Promise<readonly WeatherRun[]> {
    const key = `${point}|${asOfMs}|${fromMs}|${toMs}`;
    const kept = this.#read.get(key);
    if (kept) return kept;
    const got = weatherAsOf(this.#kv, point, fromMs, toMs, asOfMs).then((w) => {
      const n = w.temperature_c.length;
      const num = (a: (number | null)[]) => Float64Array.from(a, (v) => v ?? NaN);
      const r = w.received_ms;
      // The quarter-hour counts from when its last value arrived (all before `asOfMs`).
      const receivedAtMs = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        receivedAtMs[i] = Math.max(
          r.temperature_c[i] ?? -Infinity,
          r.ghi_w_m2[i] ?? -Infinity,
          r.wind_speed_m_s[i] ?? -Infinity,
        );
        if (receivedAtMs[i] === -Infinity) receivedAtMs[i] = NaN; // nothing received
      }
      // Frozen: the forecasts of the point's locations share its grid (lib/forecasting/weather_grid.ts).
      return Object.freeze([{
        startMs: fromMs,
        temperatureC: num(w.temperature_c),
        ghiWm2: num(w.ghi_w_m2),
        windSpeedMs: num(w.wind_speed_m_s),
        receivedAtMs,
      }]);
    });
    if (keep) this.#read.set(key, got);
    return got;
  }
}
