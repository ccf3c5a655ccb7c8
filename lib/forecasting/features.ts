/**
 * The features of the learned forecast (docs/forecasting.md, "Features"), for one quarter-hour t of
 * a day D whose latest known actuals are `lead` days before it (2 at the day-ahead gate closure):
 *
 * | name | what |
 * | --- | --- |
 * | `load_{lead}d_before` | load of the same quarter-hour `lead` days before |
 * | `load_{week}d_before` | the same `week` = 7 (14, …: the first multiple of 7 ≥ lead) days before |
 * | `profile_7d` | mean load of the same quarter-hour over the 7 latest known days (D−lead … D−lead−6) |
 * | `profile_ghi_7d`, `profile_wind_power_7d` | the weather of those same quarter-hours, averaged alike |
 * | `ghi`, `ghi_{lead}d_before`, `ghi_{week}d_before` | global horizontal irradiance, W/m² |
 * | `temperature` | °C |
 * | `wind_power`, `wind_power_{lead}d_before`, `wind_power_{week}d_before` | wind speed through a normalised turbine curve, 0…1 |
 * | `sun_elevation` | sine of the sun's elevation at the quarter-hour's middle, 0 below the horizon (npm suncalc) |
 * | `non_working_day`, `non_working_day_{lead}d_before` | 1 on Saturday, Sunday and public holidays of the site's region (npm date-holidays) |
 *
 * The lagged weather lets the fit take the weather of the lagged day back out of its load (a
 * sunny day two days ago is no reason for a low load tomorrow). Without weather (none received for
 * the day) the set keeps the load, profile, sun and calendar features. A lagged load that is not
 * known stands in as the profile; a row whose profile or weather is missing is left out of the fit
 * and, on the forecast day, moves the day to the next method.
 * @module
 */
import * as SunCalc from "suncalc";
import { publicHolidays } from "../domain/slp/day_type.ts";
import { QH_MS } from "../settlement/series.ts";
import type { Arena } from "./arena.ts";
import type { Site, View } from "./inputs.ts";
import { SLOTS_PER_DAY } from "./local_days.ts";

/** Days the profile averages over. */
export const PROFILE_DAYS = 7;

/** Which features a fit uses. */
export interface FeatureSet {
  /** Names, in column order (without the intercept). */
  readonly names: readonly string[];
  /** Days between the forecast day and its latest known actuals (≥ 1). */
  readonly lead: number;
  /** The weekly lag: the first multiple of 7 that is ≥ `lead`. */
  readonly week: number;
  /** Whether the weather features are in. */
  readonly weather: boolean;
}

/** The feature set for a lead (days) with or without weather; the same frozen object each time. */
export function featureSet(lead: number, weather: boolean): FeatureSet {
  const key = lead * 2 + (weather ? 1 : 0);
  let set = sets.get(key);
  if (!set) sets.set(key, set = Object.freeze(makeFeatureSet(lead, weather)));
  return set;
}
const sets = new Map<number, FeatureSet>();

function makeFeatureSet(lead: number, weather: boolean): FeatureSet {
  const week = Math.max(7, Math.ceil(lead / 7) * 7);
  const lags = week === lead ? [lead] : [lead, week];
  const names = [
    ...lags.map((n) => `load_${n}d_before`),
    "profile_7d",
    ...(weather
      ? [
        "profile_ghi_7d",
        "profile_wind_power_7d",
        "ghi",
        ...lags.map((n) => `ghi_${n}d_before`),
        "temperature",
        "wind_power",
        ...lags.map((n) => `wind_power_${n}d_before`),
      ]
      : []),
    "sun_elevation",
    "non_working_day",
    `non_working_day_${lead}d_before`,
  ];
  return { names: Object.freeze(names), lead, week, weather };
}

/**
 * Normalised wind power, 0…1, from the wind speed in m/s: a generic turbine curve (cut-in 3 m/s,
 * cubic to rated at 12 m/s, cut-out above 25 m/s). The fit scales it to the location's capacity.
 */
export function windPower(speedMs: number): number {
  if (!(speedMs >= 3) || speedMs > 25) return Number.isNaN(speedMs) ? NaN : 0;
  return speedMs >= 12 ? 1 : (speedMs * speedMs * speedMs - 27) / 1701; // 12³ − 27
}

/**
 * Per-view arrays the rows read: sun and wind power per grid quarter-hour, non-working days, and
 * load, GHI and wind power by day and wall-clock slot (`k * 96 + slot`, the slot's quarter-hour as
 * {@link lagIndex} picks it), from which the lags and profiles are read.
 */
export interface FeatureContext {
  view: View;
  sun: Float64Array;
  windPower: Float64Array;
  nonWorking: Uint8Array;
  slotLoad: Float64Array;
  slotGhi: Float64Array;
  slotWindPower: Float64Array;
  /**
   * The 7-day profiles by the day they end on and slot: for day j, the mean load over the days
   * j−6 … j where it is known, and the mean GHI and wind power of those same quarter-hours; NaN
   * where none. A row of day k with lead L reads day k−L's, so the fits of every lead share them;
   * each day's are made when first asked for (`made[j]`).
   */
  profile: { load: Float64Array; ghi: Float64Array; windPower: Float64Array; made: Uint8Array };
  /** Lends the arrays when given (see `./arena.ts`). */
  arena?: Arena;
}

/**
 * Computes the per-quarter-hour and per-day inputs of the features for a view.
 * @throws {import("../domain/slp/day_type.ts").UnknownHolidayRegionError} for a region date-holidays does not know
 */
export function featureContext(view: View, site: Site, arena?: Arena): FeatureContext {
  const f64 = (n: number) => arena ? arena.f64(n, 0) : new Float64Array(n);
  const n = view.load.length;
  const sun = f64(n);
  const days = view.days.length;
  const nonWorking = new Uint8Array(days);
  const slotLoad = f64(days * SLOTS_PER_DAY);
  for (let k = 0; k < days; k++) {
    const d = view.days[k];
    sun.set(sunOfDay(site, d.day, d.startMs, d.length), view.dayStart[k]);
    const holidays = publicHolidays(Number(d.day.slice(0, 4)), site.holidayRegion);
    nonWorking[k] = d.weekday >= 6 || holidays.has(d.day) ? 1 : 0;
    for (let slot = 0; slot < SLOTS_PER_DAY; slot++) {
      slotLoad[k * SLOTS_PER_DAY + slot] = view.load[view.dayStart[k] + d.indexOfSlot[slot]];
    }
  }
  const { windPower: wp, slotGhi, slotWindPower } = weatherFeatures(view, arena);
  const size = days * SLOTS_PER_DAY;
  return {
    view,
    sun,
    windPower: wp,
    nonWorking,
    slotLoad,
    slotGhi,
    slotWindPower,
    profile: { load: f64(size), ghi: f64(size), windPower: f64(size), made: new Uint8Array(days) },
    arena,
  };
}

/** What the features derive from a view's weather: the same for every view sharing its grid. */
interface WeatherFeatures {
  windPower: Float64Array;
  slotGhi: Float64Array;
  slotWindPower: Float64Array;
}

/**
 * Wind power per grid quarter-hour, and GHI and wind power by day and slot; kept with a shared
 * weather grid (`./weather_grid.ts`: the locations of a weather point derive them once), else
 * lent by `arena`.
 */
function weatherFeatures(view: View, arena?: Arena): WeatherFeatures {
  const grid = view.weather;
  if (grid.shared && grid.derived) return grid.derived as WeatherFeatures;
  const lend = grid.shared ? undefined : arena;
  const f64 = (n: number) => lend ? lend.f64(n, 0) : new Float64Array(n);
  const n = view.wind.length, days = view.days.length;
  const out = {
    windPower: f64(n),
    slotGhi: f64(days * SLOTS_PER_DAY),
    slotWindPower: f64(days * SLOTS_PER_DAY),
  };
  for (let j = 0; j < n; j++) out.windPower[j] = windPower(view.wind[j]);
  for (let k = 0; k < days; k++) {
    const d = view.days[k];
    for (let slot = 0; slot < SLOTS_PER_DAY; slot++) {
      const j = view.dayStart[k] + d.indexOfSlot[slot];
      out.slotGhi[k * SLOTS_PER_DAY + slot] = view.ghi[j];
      out.slotWindPower[k * SLOTS_PER_DAY + slot] = out.windPower[j];
    }
  }
  if (grid.shared) grid.derived = out;
  return out;
}

/**
 * The profiles ending on day `j` (see {@link FeatureContext.profile}), made if not yet: per slot
 * the means over the days max(0, j−6) … j, oldest first.
 */
function profileOn(ctx: FeatureContext, j: number) {
  const prof = ctx.profile;
  if (prof.made[j]) return prof;
  const S = SLOTS_PER_DAY;
  for (let slot = 0; slot < S; slot++) {
    let load = 0, ghi = 0, wp = 0, n = 0;
    for (let d = Math.max(0, j - PROFILE_DAYS + 1); d <= j; d++) {
      const v = ctx.slotLoad[d * S + slot];
      if (Number.isNaN(v)) continue;
      load += v;
      ghi += ctx.slotGhi[d * S + slot];
      wp += ctx.slotWindPower[d * S + slot];
      n++;
    }
    prof.load[j * S + slot] = n ? load / n : NaN;
    prof.ghi[j * S + slot] = n ? ghi / n : NaN;
    prof.windPower[j * S + slot] = n ? wp / n : NaN;
  }
  prof.made[j] = 1;
  return prof;
}

/** Days × places of sun elevations kept (about 20 MB): the locations of a weather point share them. */
const MAX_SUN_MEMO = 20_000;
const sunMemo = new Map<string, Float64Array>();

/**
 * Sine of the sun's elevation at the middle of each quarter-hour of a day at a place, 0 below the
 * horizon (npm suncalc: apparent, refraction-corrected altitude); memoized per place and day.
 */
function sunOfDay(site: Site, day: string, startMs: number, length: number): Float64Array {
  const key = `${site.latitude},${site.longitude},${day}`;
  let out = sunMemo.get(key);
  if (out) return out;
  out = new Float64Array(length);
  const date = new Date(0);
  for (let i = 0; i < length; i++) {
    date.setTime(startMs + i * QH_MS + QH_MS / 2);
    const alt = SunCalc.getPosition(date, site.latitude, site.longitude).altitude;
    out[i] = alt > 0 ? Math.sin(alt * Math.PI / 180) : 0;
  }
  if (sunMemo.size >= MAX_SUN_MEMO) sunMemo.delete(sunMemo.keys().next().value!);
  sunMemo.set(key, out);
  return out;
}

/** Grid index of the quarter-hour `i` of day `k`, `n` days before by wall-clock slot; -1 if off the grid. */
export function lagIndex(view: View, k: number, i: number, n: number): number {
  const p = k - n;
  if (p < 0) return -1;
  return view.dayStart[p] + view.days[p].indexOfSlot[view.days[k].slots[i]];
}

/** The feature rows of one day: `values` row-major (`length × names.length`), `ok` per row. */
export interface DayRows {
  values: Float64Array;
  ok: Uint8Array;
}

/**
 * Writes the rows of day `k` into `out` from row `at` on (`out.values` row-major with the set's
 * columns, `out.ok` one per row): the fit lays a window's days into one matrix without a copy.
 * Rows of a day whose lag falls before the view are left as they are, not ok.
 */
export function dayRowsInto(
  ctx: FeatureContext,
  set: FeatureSet,
  k: number,
  out: DayRows,
  at: number,
): void {
  const { view } = ctx;
  const S = SLOTS_PER_DAY;
  const len = view.days[k].length;
  const slots = view.days[k].slots;
  const p = set.names.length;
  const values = out.values, ok = out.ok;
  const twoLags = set.week !== set.lead;
  if (k - set.lead < 0) {
    ok.fill(0, at, at + len);
    return;
  }
  const prof = profileOn(ctx, k - set.lead);
  const a = (k - set.lead) * S, w = k - set.week >= 0 ? (k - set.week) * S : -1;
  const nw = ctx.nonWorking[k], nwLag = ctx.nonWorking[k - set.lead];
  for (let i = 0; i < len; i++) {
    const t = view.dayStart[k] + i;
    const s = slots[i];
    const pl = prof.load[a + s];
    const row = (at + i) * p;
    let c = row;
    values[c++] = orElse(ctx.slotLoad[a + s], pl);
    if (twoLags) values[c++] = w >= 0 ? orElse(ctx.slotLoad[w + s], pl) : pl;
    values[c++] = pl;
    if (set.weather) {
      values[c++] = prof.ghi[a + s];
      values[c++] = prof.windPower[a + s];
      values[c++] = view.ghi[t];
      values[c++] = ctx.slotGhi[a + s];
      if (twoLags) values[c++] = w >= 0 ? ctx.slotGhi[w + s] : NaN;
      values[c++] = view.temperature[t];
      values[c++] = ctx.windPower[t];
      values[c++] = ctx.slotWindPower[a + s];
      if (twoLags) values[c++] = w >= 0 ? ctx.slotWindPower[w + s] : NaN;
    }
    values[c++] = ctx.sun[t];
    values[c++] = nw;
    values[c++] = nwLag;
    let good = 1;
    for (let q = row; q < c; q++) if (values[q] !== values[q]) good = 0;
    ok[at + i] = good;
  }
}

/** `v`, or `fallback` where `v` is not known. */
const orElse = (v: number, fallback: number) => Number.isNaN(v) ? fallback : v;
