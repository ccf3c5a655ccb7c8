/**
 * The inputs of a learned forecast and what of them was known at a cut-off (docs/forecasting.md,
 * "What is known when"). Every value carries the instant it became known; {@link viewAt} keeps
 * only those known strictly before the cut-off and lays them on a grid of Berlin days, so no later
 * code can see what was not known (no look-ahead by construction).
 *
 * Units are the caller's: load in any unit (MW in the backtest, kW average in the service) comes
 * out of the forecast in the same unit.
 * @module
 */
import { QH_MS } from "../settlement/series.ts";
import type { Arena } from "./arena.ts";
import { type LocalDay, localDays } from "./local_days.ts";
import {
  type WeatherGrid,
  weatherOnGrid,
  type WeatherRun,
  type WeatherValue,
} from "./weather_grid.ts";

export { fillShortGaps, MAX_WEATHER_GAP } from "./weather_grid.ts";
export type { WeatherRun, WeatherValue } from "./weather_grid.ts";

/** One quarter-hour of load (actuals) and when it became known. */
export interface LoadValue {
  /** UTC ms of the quarter-hour's start (a multiple of 15 minutes). */
  startMs: number;
  /** Average power over the quarter-hour (MW or kW; the forecast comes out in the same unit). */
  value: number;
  /** UTC ms from which the value counts as known (received, or `actualsKnownAt(startMs)`). */
  knownAtMs: number;
}

/**
 * A run of consecutive quarter-hours of load known from one instant — a stored day of actuals as
 * it is, without one object per value (the service reads 40 days of 10,000 locations).
 */
export interface LoadRun {
  /** UTC ms of the first quarter-hour's start. */
  startMs: number;
  /** One value per quarter-hour (`NaN`: none), times `scale` (e.g. kWh × 4 = average kW). */
  values: ArrayLike<number>;
  scale: number;
  /** UTC ms from which every value of the run counts as known. */
  knownAtMs: number;
}

/** Where the location is, for the sun's elevation and the holidays. */
export interface Site {
  /** Degrees north. */
  latitude: number;
  /** Degrees east. */
  longitude: number;
  /** A date-holidays region: a country (`NL`, `DE`) or country-state (`DE-NW`). */
  holidayRegion: string;
}

/** What was known at a cut-off, on a grid of consecutive Berlin days. */
export interface View {
  /** The cut-off, UTC ms: only inputs known strictly before it are here. */
  cutoffMs: number;
  /** Consecutive Berlin days; index 0 is the grid's first day. */
  days: readonly LocalDay[];
  /** Grid index of each day's first quarter-hour. */
  dayStart: Int32Array;
  /** UTC ms of grid index 0 (00:00 Berlin of the first day). */
  originMs: number;
  /** Load per grid quarter-hour; NaN where not known at the cut-off. */
  load: Float64Array;
  /** GHI, W/m²; NaN where not received before the cut-off. */
  ghi: Float64Array;
  /** Temperature, °C; NaN where not received. */
  temperature: Float64Array;
  /** Wind speed, m/s; NaN where not received. */
  wind: Float64Array;
  /** The weather's grid these three arrays are from (shared by the views of a frozen input). */
  weather: WeatherGrid;
  /** Index in `days` of the latest day with at least one known actual; -1 when none. */
  lastKnownDay: number;
}

/**
 * Lays the inputs known strictly before `cutoffMs` on a grid of the Berlin days `firstDay` …
 * `lastDay`. A load value (or a run of them, {@link LoadRun}) counts when `knownAtMs < cutoffMs`; a
 * weather value when
 * `receivedAtMs < cutoffMs`, and of several for one quarter-hour the latest received wins (the
 * later in the array on a tie). Values outside the days, non-finite or off the quarter-hour grid
 * are left out. Weather gaps of up to {@link MAX_WEATHER_GAP} quarter-hours between two received
 * values are interpolated linearly (`./weather_grid.ts`; a frozen weather array's grid is kept for
 * the next view of the same cut-off and days). With `arena`, the grid's arrays are lent by it (the
 * caller releases them; `forecastDays` does).
 */
export function viewAt(
  cutoffMs: number,
  firstDay: string,
  lastDay: string,
  load: readonly (LoadValue | LoadRun)[],
  weather: readonly (WeatherValue | WeatherRun)[],
  arena?: Arena,
): View {
  const days = localDays(firstDay, lastDay);
  const dayStart = new Int32Array(days.length);
  let n = 0;
  for (let k = 0; k < days.length; k++) {
    dayStart[k] = n;
    n += days[k].length;
  }
  const originMs = days[0].startMs;
  // The grid index of a quarter-hour's start (negative or ≥ n outside the days), null off the grid;
  // a run's quarter-hours are consecutive from its first one's.
  const first = (ms: number) => {
    const i = (ms - originMs) / QH_MS;
    return Number.isInteger(i) ? i : null;
  };
  const nanArray = (n: number) => arena ? arena.f64(n, NaN) : new Float64Array(n).fill(NaN);
  const grid = { load: nanArray(n) };
  for (const v of load) {
    if (!(v.knownAtMs < cutoffMs)) continue;
    if ("values" in v) {
      const i0 = first(v.startMs);
      if (i0 === null) continue; // off the quarter-hour grid
      const from = Math.max(0, -i0), to = Math.min(v.values.length, n - i0);
      for (let j = from; j < to; j++) {
        const x = v.values[j] * v.scale;
        if (Number.isFinite(x)) grid.load[i0 + j] = x;
      }
      continue;
    }
    if (!Number.isFinite(v.value)) continue;
    const i = first(v.startMs);
    if (i !== null && i >= 0 && i < n) grid.load[i] = v.value;
  }
  const w = weatherOnGrid(weather, cutoffMs, days, n, arena);
  let lastKnownDay = -1;
  for (let k = days.length - 1; k >= 0 && lastKnownDay < 0; k--) {
    for (let i = 0; i < days[k].length; i++) {
      if (!Number.isNaN(grid.load[dayStart[k] + i])) {
        lastKnownDay = k;
        break;
      }
    }
  }
  return {
    cutoffMs,
    days,
    dayStart,
    originMs,
    load: grid.load,
    ghi: w.ghi,
    temperature: w.temperature,
    wind: w.wind,
    weather: w,
    lastKnownDay,
  };
}

/** Index in `view.days` of a Berlin date; -1 when outside the grid. */
export function dayIndex(view: View, day: string): number {
  const first = view.days[0].day;
  if (day < first) return -1;
  // Calendar dates as UTC midnights: whole days apart, no time zone in between.
  const k = Math.round((Date.parse(`${day}T00:00:00Z`) - Date.parse(`${first}T00:00:00Z`)) / 864e5);
  return k < view.days.length ? k : -1;
}

/** Number of days up to `lastDay` (index) whose every quarter-hour of load is known. */
export function completeDays(view: View, lastDay: number): number {
  let count = 0;
  for (let k = 0; k <= lastDay; k++) {
    const s = view.dayStart[k];
    let whole = true;
    for (let i = 0; i < view.days[k].length && whole; i++) whole = !Number.isNaN(view.load[s + i]);
    if (whole) count++;
  }
  return count;
}
