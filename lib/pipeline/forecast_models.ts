/**
 * The learned forecasts' models (docs/forecasting.md, "In the service"): per metered market
 * location one record under `["forecast_models", <malo_id>]` — what its forecast is made from and
 * how, the fitted model of the next day-ahead day (trained at, window, features, coefficients,
 * in-sample MAE), its errors over the last 28 days beside the "7 days before" baseline and the
 * customer forecast, and the fingerprint of its inputs (a location whose inputs did not change is
 * not fitted again) — and one summary under `["forecast_models_summary"]`: what the last refresh
 * did, the locations without a learned forecast and why, the weather points in use. This module
 * owns both keys; `./learned_refresh.ts` writes them.
 * @module
 */
import { getManyInRange } from "../store/kv.ts";
import { KEYS } from "../store/keys.ts";
import type { ForecastModelBody } from "../wire/forecast_models.ts";
import type { MarketLocation } from "./market_location_record.ts";

/** What a location's forecast of a day came to (docs/forecasting.md, "In the service"). */
export type DayMethod =
  | "learned"
  | "learned_without_weather"
  | "load_7_days_before"
  | "none"
  | "customer"
  | "customer_corrected"
  | "no_customer_forecast";

/** The fitted model, snake_case as stored and answered (lib/forecasting's `ModelSummary`). */
export interface StoredModel {
  method: "learned" | "learned_without_weather";
  /** The cut-off it was fitted at, ISO-8601 UTC. */
  trained_at: string;
  /** The lead it was fitted for: days between the forecast day and its latest known actuals. */
  lead_days: number;
  window: { first: string; last: string; days: number; rows: number };
  features: string[];
  /** `intercept` and one per feature, kW per the feature's unit. */
  coefficients: Record<string, number>;
  /** Mean absolute error of the fit on its own rows, kW. */
  in_sample_mae_kw: number;
}

/**
 * One evaluated past day: Σ |error| of the forecast the model gave it at its gate closure, of the
 * load 7 days before and of the customer forecast, each over the quarter-hours where it and the
 * actual exist (kW summed over quarter-hours).
 */
export interface EvaluatedDay {
  day: string;
  /** `updated_at` of the day's actuals when evaluated: a correction since evaluates it again. */
  actuals_at: string;
  /** `day_ahead`: the forecast the service made before the gate closure; `replayed`: made now
   * as the service would have made it then (the location had no learned forecast of that day). */
  from: "day_ahead" | "replayed";
  model: { n: number; abs: number } | null;
  week_before: { n: number; abs: number } | null;
  customer: { n: number; abs: number } | null;
}

/** The location's model record. */
export interface ForecastModelState {
  malo_id: string;
  /** The master data the forecast read (name, direction, weather point, region, method). */
  location: Pick<
    MarketLocation,
    "name" | "direction" | "weather_point" | "holiday_region" | "forecast_method" | "updated_at"
  >;
  /** The region the calendar came from (the location's, else the service's `holiday_region`). */
  holiday_region: string;
  /** The cut-off of the last refresh that made its forecasts, ISO-8601 UTC. */
  refreshed_at: string;
  /** The inputs it was made from, hashed: the same fingerprint → nothing to do. */
  fingerprint: string;
  /**
   * Per day of the horizon: how its forecast was made and why, and the fingerprint of its stored
   * learned forecast (`null`: none stored; absent in records from before it).
   */
  days: Record<string, { method: DayMethod; reason: string; hash?: string | null }>;
  /** The day the summary fields speak of: the next day whose gate closure is ahead. */
  next_day: string;
  /** The model of `next_day` (or of the first learned day), `null` when none was fitted. */
  model: StoredModel | null;
  /** The customer correction's verdict over the last 28 days, when the location has one. */
  correction:
    | { used: boolean; customer_mae_kw: number; corrected_mae_kw: number; days: number }
    | null;
  /** The last 28 days evaluated, oldest first. */
  evaluation: EvaluatedDay[];
}

/** A location without a learned forecast for the next day-ahead day, for the attention list. */
export interface ForecastIssue {
  malo_id: string;
  name: string | null;
  /** `none`, `load_7_days_before` or `learned_without_weather`. */
  method: DayMethod;
  reason: string;
  day: string;
}

/** What the last refresh did (one record). */
export interface ForecastModelsSummary extends SummaryPart {
  /** When it ran, ISO-8601 UTC. */
  refreshed_at: string;
  /** Its inputs' stamp: the same stamp → the learned forecasts are current. */
  stamp: string;
  /** The master-data version the set of metered locations was read at. */
  master_version: number;
  /** The days it forecast (the horizon). */
  days: string[];
  /** The next day whose gate closure is ahead (the issues speak of it). */
  next_day: string;
}

/** Reads the summary (`null`: no refresh ran yet). */
export async function readModelsSummary(kv: Deno.Kv): Promise<ForecastModelsSummary | null> {
  return (await kv.get<ForecastModelsSummary>(KEYS.forecastModelsSummary)).value;
}

/** Writes the summary. */
export async function writeModelsSummary(kv: Deno.Kv, s: ForecastModelsSummary): Promise<void> {
  await kv.set(KEYS.forecastModelsSummary, s);
}

/** The model record of one location (`null`: none). */
export async function readModel(kv: Deno.Kv, maloId: string): Promise<ForecastModelState | null> {
  return (await kv.get<ForecastModelState>(KEYS.forecastModel(maloId))).value;
}

/** The model records of `ids`, in their order (`null` where none). */
export async function readModels(
  kv: Deno.Kv,
  ids: string[],
): Promise<(ForecastModelState | null)[]> {
  return (await getManyInRange<ForecastModelState>(kv, KEYS.forecastModelPrefix, ids))
    .map((e) => e.value);
}

/** Every model record in MaLo-ID order (`limit`, `after` for pages). */
export async function listModels(
  kv: Deno.Kv,
  opts: { limit?: number; after?: string } = {},
): Promise<ForecastModelState[]> {
  const out: ForecastModelState[] = [];
  for await (
    const e of kv.list<ForecastModelState>(KEYS.forecastModels(opts.after), {
      limit: opts.limit,
      batchSize: 500,
    })
  ) out.push(e.value);
  return out;
}

/** Records written or deleted per atomic (each a few KiB; KV allows 800 KiB). */
const BATCH = 100;

/** Writes model records, and deletes those of `removed` (no longer metered), in atomics. */
export async function writeModels(
  kv: Deno.Kv,
  states: ForecastModelState[],
  removed: string[] = [],
): Promise<void> {
  const ops: ((op: Deno.AtomicOperation) => void)[] = [
    ...states.map((s) => (op: Deno.AtomicOperation) => op.set(KEYS.forecastModel(s.malo_id), s)),
    ...removed.map((id) => (op: Deno.AtomicOperation) => op.delete(KEYS.forecastModel(id))),
  ];
  for (let i = 0; i < ops.length; i += BATCH) {
    const op = kv.atomic();
    for (const f of ops.slice(i, i + BATCH)) f(op);
    if (!(await op.commit()).ok) throw new Error("writing the forecast models failed");
  }
}

/** Mean absolute error over evaluated days of one series, kW; `null` without any value. */
export function meanError(
  days: readonly EvaluatedDay[],
  pick: (d: EvaluatedDay) => { n: number; abs: number } | null,
): { mae_kw: number; days: number } | null {
  let n = 0, abs = 0, count = 0;
  for (const d of days) {
    const s = pick(d);
    if (!s || s.n === 0) continue;
    n += s.n;
    abs += s.abs;
    count++;
  }
  return n ? { mae_kw: abs / n, days: count } : null;
}

/**
 * A model record as `GET /v1/market-locations/{malo_id}/forecast-model` answers it
 * (`lib/wire/forecast_models.ts`): the next day's method and model, the last 28 days' errors in
 * kW beside the "7 days before" baseline and the customer forecast, every day of the horizon.
 */
export function modelBody(s: ForecastModelState): ForecastModelBody {
  const next = s.days[s.next_day] ?? { method: "none" as const, reason: "not forecast" };
  return {
    market_location_id: s.malo_id,
    name: s.location.name ?? null,
    forecast_method: s.location.forecast_method ?? "auto",
    delivery_day: s.next_day,
    method: next.method,
    reason: next.reason,
    refreshed_at: s.refreshed_at,
    weather_point: s.location.weather_point ?? null,
    holiday_region: s.holiday_region,
    model: s.model,
    last_28_days: {
      model: meanError(s.evaluation, (d) => d.model),
      week_before: meanError(s.evaluation, (d) => d.model ? d.week_before : null),
      customer: meanError(s.evaluation, (d) => d.customer),
      replayed_days: s.evaluation.filter((d) => d.from === "replayed" && d.model).length,
    },
    correction: s.correction,
    days: Object.entries(s.days).sort(([a], [b]) => a.localeCompare(b)).map(([day, d]) => ({
      delivery_day: day,
      method: d.method,
      reason: d.reason,
    })),
  };
}

/**
 * What model records add up to (a batch's, merged over batches and threads; the summary's own
 * fields).
 */
export interface SummaryPart {
  /** Metered locations forecast by the service. */
  locations: number;
  /** Locations by what the next day's forecast came to. */
  by_method: Partial<Record<DayMethod, number>>;
  /** Per day: locations with a stored learned forecast (any method) on it. */
  per_day: Record<string, number>;
  /** The locations whose next-day forecast is no learned one, worst first (at most 50). */
  issues: ForecastIssue[];
  /** How many such locations there are in all, by method. */
  issue_count: Partial<Record<DayMethod, number>>;
  /** Weather points the learned locations read, with how many read each. */
  points: Record<string, number>;
}

/** Issues the summary keeps. */
const MAX_ISSUES = 50;

/** How a day's method ranks among the issues (no forecast first); others are none. */
export const ISSUE_RANK: Partial<Record<DayMethod, number>> = {
  none: 0,
  load_7_days_before: 1,
  learned_without_weather: 2,
};

/** Methods whose day has a stored learned forecast. */
const STORED: ReadonlySet<DayMethod> = new Set([
  "learned",
  "learned_without_weather",
  "load_7_days_before",
  "customer_corrected",
]);

/** An empty part for the days `days`. */
export function emptySummaryPart(days: readonly string[]): SummaryPart {
  return {
    locations: 0,
    by_method: {},
    per_day: Object.fromEntries(days.map((d) => [d, 0])),
    issues: [],
    issue_count: {},
    points: {},
  };
}

const byRank = (a: ForecastIssue, b: ForecastIssue) =>
  ISSUE_RANK[a.method]! - ISSUE_RANK[b.method]! || a.malo_id.localeCompare(b.malo_id);

/** Adds one record (speaking of `next`, the next day-ahead day) to a part. */
export function addToSummary(part: SummaryPart, st: ForecastModelState, next: string): void {
  part.locations++;
  const wp = st.location.weather_point;
  if (wp) part.points[wp] = (part.points[wp] ?? 0) + 1;
  for (const [day, d] of Object.entries(st.days)) {
    if (STORED.has(d.method) && day in part.per_day) part.per_day[day]++;
  }
  const d = st.days[next];
  if (!d) return;
  part.by_method[d.method] = (part.by_method[d.method] ?? 0) + 1;
  if (ISSUE_RANK[d.method] === undefined) return;
  part.issue_count[d.method] = (part.issue_count[d.method] ?? 0) + 1;
  part.issues.push({
    malo_id: st.malo_id,
    name: st.location.name ?? null,
    method: d.method,
    reason: d.reason,
    day: next,
  });
  if (part.issues.length > 2 * MAX_ISSUES) {
    part.issues = part.issues.sort(byRank).slice(0, MAX_ISSUES);
  }
}

/** Merges `b` into `a`. */
export function mergeSummaryParts(a: SummaryPart, b: SummaryPart): SummaryPart {
  const add = <K extends string>(x: Partial<Record<K, number>>, y: Partial<Record<K, number>>) => {
    for (const [k, n] of Object.entries(y) as [K, number][]) x[k] = (x[k] ?? 0) + n;
  };
  a.locations += b.locations;
  add(a.by_method, b.by_method);
  add(a.per_day, b.per_day);
  add(a.issue_count, b.issue_count);
  add(a.points, b.points);
  a.issues = [...a.issues, ...b.issues].sort(byRank).slice(0, MAX_ISSUES);
  return a;
}

/** The summary of a refresh from its merged part. */
export function finishSummary(
  part: SummaryPart,
  s: { stamp: string; master: number; days: string[]; next: string; at: number },
): ForecastModelsSummary {
  return {
    refreshed_at: new Date(s.at).toISOString(),
    stamp: s.stamp,
    master_version: s.master,
    days: s.days,
    next_day: s.next,
    locations: part.locations,
    by_method: part.by_method,
    per_day: part.per_day,
    issues: [...part.issues].sort(byRank).slice(0, MAX_ISSUES),
    issue_count: part.issue_count,
    points: part.points,
  };
}

/**
 * Every model record's MaLo-ID and the master data it read, in MaLo-ID order, read a page at a
 * time (the records themselves are not kept: 10,000 of them are tens of MB).
 */
export async function modelLocations(
  kv: Deno.Kv,
): Promise<Map<string, ForecastModelState["location"]>> {
  const out = new Map<string, ForecastModelState["location"]>();
  for await (const e of kv.list<ForecastModelState>(KEYS.forecastModels(), { batchSize: 500 })) {
    out.set(e.key[1] as string, e.value.location);
  }
  return out;
}
