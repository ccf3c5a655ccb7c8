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

/** One UTC quarter-hour of weather at the location's weather point and when it was received. */
export interface WeatherValue {
  /** UTC ms of the quarter-hour's start. */
  startMs: number;
  /** Air temperature, °C. */
  temperatureC: number;
  /** Global horizontal irradiance, W/m², the mean over the quarter-hour. */
  ghiWm2: number;
  /** Wind speed, m/s (100 m where the source has it, else 10 m). */
  windSpeedMs: number;
  /** UTC ms the value was received; a later value for the same quarter-hour supersedes it. */
  receivedAtMs: number;
}

/**
 * A run of consecutive UTC quarter-hours of weather, each with when it was received — a point's
 * weather as read from the store, without one object per quarter-hour (the service keeps it for
 * every point of a refresh). `NaN` where a variable is unknown; a quarter-hour received at
 * `-Infinity`… or `NaN` has nothing.
 */
export interface WeatherRun {
  startMs: number;
  temperatureC: ArrayLike<number>;
  ghiWm2: ArrayLike<number>;
  windSpeedMs: ArrayLike<number>;
  receivedAtMs: ArrayLike<number>;
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
 * values are interpolated linearly. With `arena`, the grid's arrays are lent by it (the caller
 * releases them; `forecastDays` does).
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
  const at = (ms: number) => {
    const i = (ms - originMs) / QH_MS;
    return Number.isInteger(i) && i >= 0 && i < n ? i : -1;
  };
  // A run's quarter-hours are consecutive: from its first one's grid index (or where it would be).
  const first = (ms: number) => {
    const i = (ms - originMs) / QH_MS;
    return Number.isInteger(i) ? i : null;
  };
  const nanArray = (n: number) => arena ? arena.f64(n, NaN) : new Float64Array(n).fill(NaN);
  const grid = { load: nanArray(n), ghi: nanArray(n), temperature: nanArray(n), wind: nanArray(n) };
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
    const i = at(v.startMs);
    if (i >= 0) grid.load[i] = v.value;
  }
  const received = arena ? arena.f64(n, -Infinity) : new Float64Array(n).fill(-Infinity);
  const put = (i: number, at: number, ghi: number, temperature: number, wind: number) => {
    if (i < 0 || at < received[i]) return;
    received[i] = at;
    grid.ghi[i] = finiteOrNaN(ghi);
    grid.temperature[i] = finiteOrNaN(temperature);
    grid.wind[i] = finiteOrNaN(wind);
  };
  for (const w of weather) {
    if ("receivedAtMs" in w && typeof w.receivedAtMs === "number") {
      const v = w as WeatherValue;
      if (v.receivedAtMs < cutoffMs) {
        put(at(v.startMs), v.receivedAtMs, v.ghiWm2, v.temperatureC, v.windSpeedMs);
      }
      continue;
    }
    const r = w as WeatherRun;
    const i0 = first(r.startMs);
    if (i0 === null) continue; // off the quarter-hour grid
    const from = Math.max(0, -i0), to = Math.min(r.receivedAtMs.length, n - i0);
    for (let j = from; j < to; j++) {
      const t = r.receivedAtMs[j];
      if (!(t < cutoffMs)) continue;
      put(i0 + j, t, r.ghiWm2[j], r.temperatureC[j], r.windSpeedMs[j]);
    }
  }
  for (const a of [grid.ghi, grid.temperature, grid.wind]) fillShortGaps(a, MAX_WEATHER_GAP);
  let lastKnownDay = -1;
  for (let k = days.length - 1; k >= 0 && lastKnownDay < 0; k--) {
    for (let i = 0; i < days[k].length; i++) {
      if (!Number.isNaN(grid.load[dayStart[k] + i])) {
        lastKnownDay = k;
        break;
      }
    }
  }
  return { cutoffMs, days, dayStart, originMs, ...grid, lastKnownDay };
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

/** Quarter-hours of missing weather filled between two received neighbours (1 hour). */
export const MAX_WEATHER_GAP = 4;

/**
 * Fills runs of at most `max` NaNs that have a finite value on both sides by linear interpolation
 * between those two (both known at the cut-off, so nothing later enters).
 */
export function fillShortGaps(a: Float64Array, max: number): void {
  let last = -1;
  for (let j = 0; j < a.length; j++) {
    if (Number.isNaN(a[j])) continue;
    const gap = j - last - 1;
    if (last >= 0 && gap > 0 && gap <= max) {
      for (let m = 1; m <= gap; m++) a[last + m] = a[last] + (a[j] - a[last]) * m / (gap + 1);
    }
    last = j;
  }
}

const finiteOrNaN = (x: number) => Number.isFinite(x) ? x : NaN;
