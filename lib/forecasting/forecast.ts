/**
 * The learned forecast of a market location (docs/forecasting.md): for each requested Berlin day,
 * every quarter-hour's load from a ridge regression fitted at the cut-off on the location's own
 * actuals, its weather and the calendar — with only what was known before the cut-off — or the
 * labelled fallback when that is not possible:
 *
 * 1. `learned`: the fit with weather (features.ts);
 * 2. `learned_without_weather`: no weather for the day (or too little in the window) was received;
 * 3. `load_7_days_before`: fewer than {@link DEFAULT_OPTIONS}.minDays complete days of actuals, or
 *    no fit possible: the load of the same quarter-hour 7 days before (14, 21, 28 where 7 is not
 *    known yet);
 * 4. `none`: not even that — `values` is `null` and `reason` says why in words (never zeros).
 *
 * Pure: no storage, no clock; the service's forecast step and `deno task backtest` call
 * {@link forecastDays} alike.
 *
 * @example
 * const [d] = forecastDays({ cutoffMs, days: ["2020-11-02"], load, weather, site });
 * d.method; // "learned"
 * d.values!.length; // 96
 * @module
 */
import { addDays, localDayOf, parseDay } from "../domain/delivery_day.ts";
import {
  dayRowsInto,
  type FeatureContext,
  featureContext,
  type FeatureSet,
  featureSet,
  lagIndex,
  PROFILE_DAYS,
} from "./features.ts";
import {
  completeDays,
  dayIndex,
  type LoadRun,
  type LoadValue,
  type Site,
  viewAt,
  type WeatherRun,
  type WeatherValue,
} from "./inputs.ts";
import { Arena } from "./arena.ts";
import { dropColumns, dropped, rowsWithout, scratch } from "./fit_rows.ts";
import { fitRidge, predictRow, type RidgeFit } from "./ridge.ts";

/** How a day's values were made. */
export type ForecastMethod = "learned" | "learned_without_weather" | "load_7_days_before" | "none";

/**
 * The model's settings (docs/forecasting.md, "Fit"): the defaults are the best of 36 candidates
 * on the training months of the OpenSTEF set (replayed 2020-09-15 … 2020-10-30), never tuned on
 * the test month.
 */
export interface ModelOptions {
  /** Days of actuals the fit reads, ending with the latest known day (default 21). */
  windowDays: number;
  /** Half-life of the rows' weights, days: a day `h` older counts half; `null` = equal (default). */
  halfLifeDays: number | null;
  /** Ridge strength on standardised features (default 0.001). */
  alpha: number;
  /** Complete days of actuals below which the forecast falls back to the week before (default 14). */
  minDays: number;
  /**
   * Features left out, by name or name prefix (e.g. `ghi` leaves out `ghi`, `ghi_2d_before`, …):
   * for measuring what a feature group adds (docs/forecasting.md, "What each part adds"). Default none.
   */
  without: readonly string[];
  /**
   * The leads (days between a forecast day and its latest known actuals) the model is fitted for,
   * ascending; a day is forecast by the fit of the first of them that is ≥ its own lead (a fit for
   * a longer lead reads only older days, so it is valid for a shorter one). `null` (default): one
   * fit per lead. The service fits `[1, 2, 3, 7, 14, 21, 28, 35]` (docs/forecasting.md, "In the
   * service"): the days up to the day after tomorrow get their own fit, the later days share one
   * per week.
   */
  leadSteps: readonly number[] | null;
}

/** Defaults of {@link ModelOptions}. */
export const DEFAULT_OPTIONS: Readonly<ModelOptions> = Object.freeze({
  windowDays: 21,
  halfLifeDays: null,
  alpha: 0.001,
  minDays: 14,
  without: [],
  leadSteps: null,
});

/** What a fitted model is, for a person (issue 33 item 4: the forecast model's page). */
export interface ModelSummary {
  method: "learned" | "learned_without_weather";
  /** The cut-off the model was fitted at, ISO 8601 UTC. */
  trainedAt: string;
  /** Days between the forecast day and its latest known actuals. */
  leadDays: number;
  /** The Berlin days whose actuals the fit read, and how many quarter-hours of them. */
  window: { first: string; last: string; days: number; rows: number };
  /** Feature names, in order (docs/forecasting.md, "Features"). */
  features: string[];
  /** The intercept and one coefficient per feature, in the load's unit per the feature's unit. */
  coefficients: Record<string, number>;
  /** Weighted mean absolute error of the fit on its own rows, in the load's unit. */
  inSampleMae: number;
}

/** The forecast of one day. */
export interface DayForecast {
  /** `YYYY-MM-DD`, Europe/Berlin. */
  day: string;
  method: ForecastMethod;
  /** Why this method, in words (e.g. "3 of 14 days of actuals"). */
  reason: string;
  /** One value per quarter-hour (92, 96 or 100), in the load's unit; `null` for `none`. */
  values: number[] | null;
  /** The fit behind a learned day; `null` otherwise. */
  model: ModelSummary | null;
}

/** What {@link forecastDays} needs. */
export interface ForecastRequest {
  /** The forecast's instant, UTC ms: only inputs known strictly before it are read. */
  cutoffMs: number;
  /** Berlin days to forecast, `YYYY-MM-DD`. */
  days: readonly string[];
  /** The location's actuals, each (or each run, {@link LoadRun}) with when it became known. */
  load: readonly (LoadValue | LoadRun)[];
  /** Weather at the location's weather point, each (or each run) with when it was received. */
  weather: readonly (WeatherValue | WeatherRun)[];
  site: Site;
  options?: Partial<ModelOptions>;
}

/** Weeks the `load_7_days_before` fallback looks back at most. */
const FALLBACK_WEEKS = 4;

/**
 * Forecasts every quarter-hour of each requested day (docs/forecasting.md).
 * @throws {import("../domain/delivery_day.ts").InvalidDeliveryDayError} for a malformed day
 * @throws {import("../domain/slp/day_type.ts").UnknownHolidayRegionError} for an unknown holiday region
 */
export function forecastDays(req: ForecastRequest): DayForecast[] {
  const opt = { ...DEFAULT_OPTIONS, ...req.options };
  for (const day of req.days) parseDay(day);
  if (req.days.length === 0) return [];
  const sorted = [...req.days].sort();
  const cutoffDay = localDayOf(req.cutoffMs);
  const lastTarget = sorted[sorted.length - 1] > cutoffDay ? sorted[sorted.length - 1] : cutoffDay;
  const firstDay = addDays(
    sorted[0] < cutoffDay ? sorted[0] : cutoffDay,
    -historyDays(cutoffDay, lastTarget, opt),
  );
  try {
    return forecastOn(req, opt, firstDay, lastTarget);
  } finally {
    arena.release(); // nothing lent is kept: the results are plain arrays
  }
}

/**
 * How many days of history before the cut-off's day (a Berlin date) a forecast of the days up to
 * `lastDay` reads: the fit window's days, and before them the lags and the profile of the longest
 * lead it fits (the latest actuals are at best the day before the cut-off's day). A caller that
 * reads the inputs from storage reads this far back (`lib/pipeline/learned_chunks.ts`).
 */
export function historyDays(
  cutoffDay: string,
  lastDay: string,
  options: Partial<ModelOptions> = {},
): number {
  const opt = { ...DEFAULT_OPTIONS, ...options };
  const last = lastDay > cutoffDay ? lastDay : cutoffDay;
  const maxLead = fitLead(Math.max(2, daysBetween(cutoffDay, last) + 1), opt.leadSteps);
  const reach = Math.max(featureSet(maxLead, true).week, maxLead + PROFILE_DAYS - 1);
  return opt.windowDays + reach + 1;
}

/** One arena per thread: a forecast is synchronous (`./arena.ts`). */
const arena = new Arena();

function forecastOn(
  req: ForecastRequest,
  opt: ModelOptions,
  firstDay: string,
  lastTarget: string,
): DayForecast[] {
  const view = viewAt(req.cutoffMs, firstDay, lastTarget, req.load, req.weather, arena);
  const ctx = featureContext(view, req.site, arena);
  const known = view.lastKnownDay < 0 ? 0 : completeDays(view, view.lastKnownDay);
  const fits = new Map<string, Fitted | string>();
  return req.days.map((day) => {
    const k = dayIndex(view, day);
    if (known < opt.minDays) {
      return weekBefore(ctx, k, `${known} of ${opt.minDays} days of actuals`);
    }
    const own = Math.max(1, k - view.lastKnownDay);
    const lead = fitLead(own, opt.leadSteps);
    const tried: string[] = [];
    for (const weather of [true, false]) {
      const key = `${lead}|${weather}`;
      if (!fits.has(key)) fits.set(key, fit(ctx, lead, weather, opt));
      const f = fits.get(key)!;
      if (typeof f === "string") {
        tried.push(f);
        continue;
      }
      const values = predictDay(ctx, f, k);
      if (Array.isArray(values)) return learnedDay(view.days[k].day, f, values, tried, own);
      tried.push(values);
    }
    return weekBefore(ctx, k, `no model: ${tried.join("; ")}`);
  });
}

interface Fitted {
  fit: RidgeFit;
  summary: ModelSummary;
  set: FeatureSet;
  drop: number[];
  /** The lowest value a forecast takes: the window's lowest actual, or 0 when that is above 0. */
  floor: number;
}

/** Fits the model of a lead with or without weather; a sentence when it cannot. */
function fit(
  ctx: FeatureContext,
  lead: number,
  weather: boolean,
  opt: ModelOptions,
): Fitted | string {
  const { view } = ctx;
  const set = featureSet(lead, weather);
  const p = set.names.length;
  const drop = dropped(set, opt.without);
  const last = view.lastKnownDay;
  const first = Math.max(0, last - opt.windowDays + 1);
  let n = 0;
  for (let k = first; k <= last; k++) n += view.days[k].length;
  const { x, y, w, use } = scratch(n, p);
  const rows = { values: x, ok: use };
  let r = 0, floor = 0, usable = 0;
  for (let k = first; k <= last; k++) {
    dayRowsInto(ctx, set, k, rows, r); // the day's rows straight into the matrix
    dropColumns(rows, p, drop, r, view.days[k].length);
    const weight = opt.halfLifeDays === null ? 1 : 0.5 ** ((last - k) / opt.halfLifeDays);
    for (let i = 0; i < view.days[k].length; i++, r++) {
      const target = view.load[view.dayStart[k] + i];
      const ok = use[r] && target === target ? 1 : 0;
      use[r] = ok;
      usable += ok;
      if (ok && target < floor) floor = target;
      y[r] = target;
      w[r] = weight;
    }
  }
  const minRows = 7 * 96;
  if (usable < minRows) {
    return weather
      ? `weather and actuals together for only ${usable} quarter-hours of the window (at least ${minRows})`
      : `only ${usable} quarter-hours of the window can be fitted (at least ${minRows})`;
  }
  const f = fitRidge(x, y, use, w, p, opt.alpha);
  const coefficients: Record<string, number> = { intercept: f.intercept };
  const features = set.names.filter((_, j) => !drop.includes(j));
  set.names.forEach((name, j) => {
    if (!drop.includes(j)) coefficients[name] = f.coefficients[j];
  });
  const summary: ModelSummary = {
    method: weather ? "learned" : "learned_without_weather",
    trainedAt: new Date(view.cutoffMs).toISOString(),
    leadDays: lead,
    window: {
      first: view.days[first].day,
      last: view.days[last].day,
      days: last - first + 1,
      rows: f.rows,
    },
    features,
    coefficients,
    inSampleMae: f.inSampleMae,
  };
  return { fit: f, summary, set, drop, floor };
}

/** The fitted values of day `k`; a sentence naming the first missing feature when there is one. */
function predictDay(ctx: FeatureContext, f: Fitted, k: number): number[] | string {
  const rows = rowsWithout(ctx, f.set, k, f.drop);
  const p = f.set.names.length;
  const out: number[] = [];
  const day = ctx.view.days[k];
  for (let i = 0; i < day.length; i++) {
    if (!rows.ok[i]) {
      const c = f.set.names.findIndex((_, j) => Number.isNaN(rows.values[i * p + j]));
      return `${f.set.names[c]} of ${day.day} ${
        slotLabel(day.slots[i])
      } was not known at the cut-off`;
    }
    // Never below what the window saw: a PV park's night is 0, not a little consumption.
    out.push(Math.max(f.floor, predictRow(rows.values, i, p, f.fit.intercept, f.fit.coefficients)));
  }
  return out;
}

function learnedDay(
  day: string,
  f: Fitted,
  values: number[],
  tried: string[],
  lead: number,
): DayForecast {
  const s = f.summary;
  const fitted = s.leadDays === lead ? "" : ` (fitted for a lead of ${s.leadDays} days)`;
  const base =
    `ridge regression fitted on ${s.window.days} days of actuals (${s.window.first} … ${s.window.last}), latest actuals ${lead} days before${fitted}`;
  return {
    day,
    method: s.method,
    reason: tried.length
      ? `${base}; without weather: ${tried.join("; ")}`
      : `${base}, with weather`,
    values,
    model: s,
  };
}

/**
 * The `load_7_days_before` fallback: each quarter-hour's load 7 days before by wall-clock time,
 * or 14, 21, 28 where the nearer one is not known; `none` when a quarter-hour has none of them.
 */
function weekBefore(ctx: FeatureContext, k: number, why: string): DayForecast {
  const { view } = ctx;
  const day = view.days[k];
  const values: number[] = [];
  for (let i = 0; i < day.length; i++) {
    let v = NaN;
    for (let m = 1; m <= FALLBACK_WEEKS && Number.isNaN(v); m++) {
      const j = lagIndex(view, k, i, 7 * m);
      if (j >= 0) v = view.load[j];
    }
    if (Number.isNaN(v)) {
      return {
        day: day.day,
        method: "none",
        reason: `${why}, and no load of the same weekday at ${
          slotLabel(day.slots[i])
        } in the ${FALLBACK_WEEKS} weeks before ${day.day} to fall back on`,
        values: null,
        model: null,
      };
    }
    values.push(v);
  }
  return { day: day.day, method: "load_7_days_before", reason: why, values, model: null };
}

/** The lead a day of lead `lead` is fitted for: the first step ≥ it, else its own. */
const fitLead = (lead: number, steps: readonly number[] | null) =>
  steps?.find((s) => s >= lead) ?? lead;

const slotLabel = (s: number) =>
  `${String(Math.floor(s / 4)).padStart(2, "0")}:${String((s % 4) * 15).padStart(2, "0")}`;

const daysBetween = (a: string, b: string) =>
  Temporal.PlainDate.from(a).until(Temporal.PlainDate.from(b)).days;
