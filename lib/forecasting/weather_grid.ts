/**
 * The weather of a learned forecast laid on its grid of Berlin days (docs/forecasting.md, "What is
 * known when"): per quarter-hour the value received last before the cut-off, short gaps
 * interpolated. The locations of one weather point share it: where the weather array handed in is
 * frozen (the service's reads, `lib/pipeline/learned_inputs.ts`), its grid for a cut-off and run
 * of days is made once and kept with the array (and with it what the features derive from it,
 * {@link WeatherGrid.derived}), so 100 locations of a point lay and derive its weather once.
 * @module
 */
import { QH_MS } from "../settlement/series.ts";
import type { Arena } from "./arena.ts";
import type { LocalDay } from "./local_days.ts";

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

/** Quarter-hours of missing weather filled between two received neighbours (1 hour). */
export const MAX_WEATHER_GAP = 4;

/** A view's weather: one value per grid quarter-hour, NaN where nothing was received. */
export interface WeatherGrid {
  /** GHI, W/m². */
  ghi: Float64Array;
  /** Temperature, °C. */
  temperature: Float64Array;
  /** Wind speed, m/s. */
  wind: Float64Array;
  /** Whether other views share it (then nothing of it may be written, nor lent by an arena). */
  shared: boolean;
  /** What the features derive from it, kept with a shared grid (`./features.ts`). */
  derived?: unknown;
}

/** Grids kept per frozen weather array: the service's cut-off, and a few replays'. */
const KEPT_PER_INPUT = 4;
const kept = new WeakMap<object, Map<string, WeatherGrid>>();

/**
 * The weather known strictly before `cutoffMs` on the grid of `days` (`n` quarter-hours from the
 * first day's 00:00): of several values for one quarter-hour the latest received wins (the later
 * in the array on a tie); non-finite values count as none; gaps of up to {@link MAX_WEATHER_GAP}
 * quarter-hours between two received values interpolated linearly. For a frozen `weather` array
 * the grid is kept and shared (read-only); else its arrays are lent by `arena` when given.
 */
export function weatherOnGrid(
  weather: readonly (WeatherValue | WeatherRun)[],
  cutoffMs: number,
  days: readonly LocalDay[],
  n: number,
  arena?: Arena,
): WeatherGrid {
  const shared = Object.isFrozen(weather);
  const key = `${cutoffMs}|${days[0].day}|${days.length}`;
  const known = shared ? kept.get(weather) : undefined;
  const hit = known?.get(key);
  if (hit) return hit;
  const lend = shared ? undefined : arena;
  const nanArray = () => lend ? lend.f64(n, NaN) : new Float64Array(n).fill(NaN);
  const grid: WeatherGrid = { ghi: nanArray(), temperature: nanArray(), wind: nanArray(), shared };
  const received = arena ? arena.f64(n, -Infinity) : new Float64Array(n).fill(-Infinity);
  const originMs = days[0].startMs;
  const put = (i: number, at: number, ghi: number, temperature: number, wind: number) => {
    if (i < 0 || at < received[i]) return;
    received[i] = at;
    grid.ghi[i] = finiteOrNaN(ghi);
    grid.temperature[i] = finiteOrNaN(temperature);
    grid.wind[i] = finiteOrNaN(wind);
  };
  for (const w of weather) {
    const i0 = (w.startMs - originMs) / QH_MS;
    if (!Number.isInteger(i0)) continue; // off the quarter-hour grid
    if ("receivedAtMs" in w && typeof w.receivedAtMs === "number") {
      const v = w as WeatherValue;
      if (v.receivedAtMs < cutoffMs && i0 >= 0 && i0 < n) {
        put(i0, v.receivedAtMs, v.ghiWm2, v.temperatureC, v.windSpeedMs);
      }
      continue;
    }
    // A run's quarter-hours are consecutive: from its first one's grid index on.
    const r = w as WeatherRun;
    const from = Math.max(0, -i0), to = Math.min(r.receivedAtMs.length, n - i0);
    for (let j = from; j < to; j++) {
      const t = r.receivedAtMs[j];
      if (!(t < cutoffMs)) continue;
      put(i0 + j, t, r.ghiWm2[j], r.temperatureC[j], r.windSpeedMs[j]);
    }
  }
  for (const a of [grid.ghi, grid.temperature, grid.wind]) fillShortGaps(a, MAX_WEATHER_GAP);
  if (shared) {
    const map = known ?? new Map<string, WeatherGrid>();
    if (!known) kept.set(weather, map);
    if (map.size >= KEPT_PER_INPUT) map.delete(map.keys().next().value!);
    map.set(key, grid);
  }
  return grid;
}

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
