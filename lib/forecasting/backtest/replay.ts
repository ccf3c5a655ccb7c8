/**
 * The backtest (docs/forecasting.md, "The backtest"): replays each Berlin day D from `from` to
 * `to` as the service would — the forecast made at D's gate closure (12:00 Berlin on D−1 by
 * default, as `gateClosure` of lib/domain/deadlines.ts puts it) by {@link forecastDays}, the same code the service runs, with only what was known then:
 *
 * - the history's actuals of a day count as known from 06:00 Berlin of the next day (a DSO's
 *   delivery), so at the gate closure D−2 is the latest complete day;
 * - the history's weather of a day counts as received at 06:00 Berlin of the day before it, as a
 *   morning weather forecast for the next day would be. OpenSTEF's weather columns are its model
 *   inputs, closer to what happened than a forecast made the day before: the figures are in that
 *   sense a bound on what a real day-ahead weather forecast would give.
 *
 * Beside the model, on the same quarter-hours: the "7 days before" and "2 days before" baselines
 * (the load of the same wall-clock quarter-hour then) and a reference forecast when given.
 * @module
 */
import { addDays, localDayOf } from "../../domain/delivery_day.ts";
import { lagIndex } from "../features.ts";
import { type DayForecast, forecastDays, type ModelOptions } from "../forecast.ts";
import { type LoadValue, type Site, viewAt, type WeatherValue } from "../inputs.ts";
import { actualsKnownAt, dayOfInstant, localTimeOn, shiftDay } from "../local_days.ts";
import type { History } from "./history_csv.ts";
import { BacktestInputError } from "./history_csv.ts";
import { type Figures, figures, percentile } from "./metrics.ts";

/** What to replay. */
export interface BacktestOptions {
  /** First and last Berlin day, `YYYY-MM-DD`. */
  from: string;
  to: string;
  /** `HH:MM` Berlin on the day before (default `12:00`, SDAC). */
  gateClosureLocalTime?: string;
  /**
   * Days before delivery the forecast is made, at `gateClosureLocalTime` (default 1: the day-ahead
   * gate closure; 2 = the day before that, for what lead time costs).
   */
  daysBefore?: number;
  site: Site;
  model?: Partial<ModelOptions>;
}

/** One quarter-hour of the replay; NaN where a value is missing. */
export interface BacktestRow {
  startMs: number;
  day: string;
  actual: number;
  forecast: number;
  weekBefore: number;
  twoDaysBefore: number;
  reference: number;
}

/** The figures by forecast, over the quarter-hours where all of them and the actual exist. */
export interface BacktestFigures {
  quarterHours: number;
  /** P1 and P99 of the actual load there, MW. */
  p1: number;
  p99: number;
  model: Figures;
  weekBefore: Figures;
  twoDaysBefore: Figures;
  reference: Figures | null;
}

/** The replay's result. */
export interface BacktestResult {
  rows: BacktestRow[];
  /** Each day's forecast as made (method, reason, model). */
  days: DayForecast[];
  figures: BacktestFigures;
}

/**
 * When the history's weather for the quarter-hour at `startMs` counts as received: 06:00 Berlin on
 * the day before its Berlin day. UTC ms.
 */
export function weatherReceivedAt(startMs: number): number {
  return localTimeOn(shiftDay(dayOfInstant(startMs), -1), "06:00");
}

/**
 * A history's rows as the forecast's inputs, with the backtest's rules of when each was known:
 * actuals from 06:00 Berlin of the next day ({@link actualsKnownAt}), weather from
 * {@link weatherReceivedAt}. Rows between `fromMs` and `toMs` (UTC ms, end exclusive) only.
 */
export function historyInputs(
  history: History,
  fromMs = -Infinity,
  toMs = Infinity,
): { load: LoadValue[]; weather: WeatherValue[] } {
  const load: LoadValue[] = [];
  const weather: WeatherValue[] = [];
  for (let r = 0; r < history.startMs.length; r++) {
    const startMs = history.startMs[r];
    if (startMs < fromMs || startMs >= toMs) continue;
    if (!Number.isNaN(history.load[r])) {
      load.push({ startMs, value: history.load[r], knownAtMs: actualsKnownAt(startMs) });
    }
    weather.push({
      startMs,
      temperatureC: history.temperatureC[r],
      ghiWm2: history.ghiWm2[r],
      windSpeedMs: history.windSpeedMs[r],
      receivedAtMs: weatherReceivedAt(startMs),
    });
  }
  return { load, weather };
}

/**
 * Replays `from` … `to`.
 * @param reference UTC start → MW, or `null`
 * @throws {BacktestInputError} when the history does not cover the days, or no quarter-hour can be compared
 */
export function replay(
  history: History,
  reference: Map<number, number> | null,
  opt: BacktestOptions,
): BacktestResult {
  if (opt.from > opt.to) throw new BacktestInputError(`--from ${opt.from} is after --to ${opt.to}`);
  const gc = opt.gateClosureLocalTime ?? "12:00";
  const { load, weather } = historyInputs(history);
  if (load.length === 0) throw new BacktestInputError("the history has no load values");
  const firstHistory = localDayOf(history.startMs[0]);
  const lastHistory = localDayOf(history.startMs[history.startMs.length - 1]);
  if (opt.to > lastHistory || opt.from <= firstHistory) {
    throw new BacktestInputError(
      `the history covers ${firstHistory} … ${lastHistory} (Berlin); --from ${opt.from} --to ${opt.to} must lie after its first day and within it`,
    );
  }
  // The truth, for the actuals and the baselines (all known at every cut-off: 2 and 7 days back).
  const truth = viewAt(Infinity, addDays(firstHistory, -14), opt.to, load, []);
  const rows: BacktestRow[] = [];
  const made: DayForecast[] = [];
  for (let day = opt.from; day <= opt.to; day = addDays(day, 1)) {
    const cutoffMs = localTimeOn(addDays(day, -(opt.daysBefore ?? 1)), gc);
    const [f] = forecastDays({
      cutoffMs,
      days: [day],
      load,
      weather,
      site: opt.site,
      options: opt.model,
    });
    made.push(f);
    const k = truth.days.findIndex((d) => d.day === day);
    const at = (j: number) => j >= 0 ? truth.load[j] : NaN;
    for (let i = 0; i < truth.days[k].length; i++) {
      const startMs = truth.days[k].startMs + i * 900_000;
      rows.push({
        startMs,
        day,
        actual: truth.load[truth.dayStart[k] + i],
        forecast: f.values ? f.values[i] : NaN,
        weekBefore: at(lagIndex(truth, k, i, 7)),
        twoDaysBefore: at(lagIndex(truth, k, i, 2)),
        reference: reference?.get(startMs) ?? NaN,
      });
    }
  }
  return { rows, days: made, figures: compare(rows, reference !== null) };
}

/** The figures over the quarter-hours where every compared series and the actual are finite. */
export function compare(rows: readonly BacktestRow[], withReference: boolean): BacktestFigures {
  const used = rows.filter((r) =>
    Number.isFinite(r.actual) && Number.isFinite(r.forecast) && Number.isFinite(r.weekBefore) &&
    Number.isFinite(r.twoDaysBefore) && (!withReference || Number.isFinite(r.reference))
  );
  if (used.length === 0) {
    throw new BacktestInputError(
      "no quarter-hour has the actual, the forecast, both baselines" +
        (withReference ? " and the reference" : ""),
    );
  }
  const actual = used.map((r) => r.actual);
  const p1 = percentile(actual, 1), p99 = percentile(actual, 99);
  const of = (pick: (r: BacktestRow) => number) => figures(used.map(pick), actual, p99 - p1);
  return {
    quarterHours: used.length,
    p1,
    p99,
    model: of((r) => r.forecast),
    weekBefore: of((r) => r.weekBefore),
    twoDaysBefore: of((r) => r.twoDaysBefore),
    reference: withReference ? of((r) => r.reference) : null,
  };
}
