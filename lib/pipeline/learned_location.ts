/**
 * The learned forecasts of one metered market location (docs/forecasting.md, "In the service"),
 * pure: from what `./learned_inputs.ts` read, the forecast of every day of the horizon by the
 * method the location's `forecast_method` and its customer forecasts call for — the model of
 * lib/forecasting (`forecastDays`, the code `deno task backtest` replays) where the forecast is
 * learned, `correctCustomerForecast` where a customer forecast is there to correct — and the
 * location's model record: the model, how each day was made, its errors over the last 28 days.
 * No storage, no clock: the caller gives the cut-off.
 * @module
 */
import { correctCustomerForecast } from "../forecasting/correction.ts";
import { type DayForecast, forecastDays, type ModelSummary } from "../forecasting/forecast.ts";
import type { Site, WeatherRun } from "../forecasting/inputs.ts";
import { localDay, shiftDay } from "../forecasting/local_days.ts";
import type { PackedActuals } from "../settlement/actuals_store.ts";
import type { EvaluatedDay, ForecastModelState, StoredModel } from "./forecast_models.ts";
import type { LearnedForecast, ValuesForecast } from "./forecasts.ts";
import { customerValues, loadRuns, loadValues } from "./learned_inputs.ts";
import { fnv1a } from "../domain/slp/profile.ts";
import type { MarketLocation } from "./market_location_record.ts";

/**
 * The leads the service fits (lib/forecasting `ModelOptions.leadSteps`; docs/forecasting.md, "In
 * the service"): tomorrow (lead 2, the day-ahead schedule) and the day after (lead 3) their own;
 * today shares tomorrow's fit (lead 1 → 2: it reads only older actuals), the days up to a week
 * ahead share the fit for a lead of 8, then one per week. Three fits a location instead of five
 * for the default horizon of a week: the daily refit of 10,000 locations is CPU-bound.
 */
export const SERVICE_LEAD_STEPS = [2, 3, 8, 15, 22, 29, 36] as const;

/** Days of errors kept and shown. */
export const EVALUATION_DAYS = 28;

/** What one location's forecasts are made from. */
export interface LocationInput {
  location: MarketLocation;
  /** The location's holiday region, else the service's. */
  region: string;
  site: Site;
  /** The cut-off (now), UTC ms. */
  cutoffMs: number;
  /** The horizon's days, ascending; `nextDay` among them is the next with its gate closure ahead. */
  days: readonly string[];
  nextDay: string;
  /** Gate closure of a delivery day, UTC ms. */
  gateOf: (day: string) => number;
  /** Actuals by day (the days read), customer forecasts by day, stored learned forecasts by day. */
  actuals: ReadonlyMap<string, PackedActuals>;
  customer: ReadonlyMap<string, ValuesForecast>;
  learned: ReadonlyMap<string, LearnedForecast>;
  /** The weather of its point as known at the cut-off (empty without a point). */
  weather: readonly WeatherRun[];
  /** Past days to replay at their gate closure, with the weather as known then. */
  replays: ReadonlyMap<string, readonly WeatherRun[]>;
  previous: ForecastModelState | null;
  fingerprint: string;
  by: string;
}

/** What became of the location. */
export interface LocationOutcome {
  state: ForecastModelState;
  /** Per horizon day: the learned forecast to store, or `null` where none counts (deleted). */
  records: Map<string, LearnedForecast | null>;
  /** Replays made (each one fit), for the refresh's budget. */
  replayed: number;
}

/**
 * The past days whose errors are still to be found: of the last {@link EVALUATION_DAYS} before
 * the cut-off's day, those with complete actuals and no current entry, oldest first.
 */
export function daysToEvaluate(
  today: string,
  actuals: ReadonlyMap<string, PackedActuals>,
  previous: ForecastModelState | null,
): string[] {
  const kept = new Map((previous?.evaluation ?? []).map((e) => [e.day, e]));
  const out: string[] = [];
  for (let back = EVALUATION_DAYS; back >= 1; back--) {
    const day = shiftDay(today, -back);
    const rec = actuals.get(day);
    if (!rec || !complete(rec)) continue;
    const e = kept.get(day);
    if (!e || e.actuals_at !== rec.updated_at) out.push(day);
  }
  return out;
}

/** Every quarter-hour metered (a plain loop: a typed array's `every` calls back per value). */
function complete(rec: PackedActuals): boolean {
  const kwh = rec.kwh;
  for (let i = 0; i < kwh.length; i++) if (kwh[i] !== kwh[i]) return false;
  return true;
}

/** Makes the location's forecasts and model record. */
export function forecastLocation(inp: LocationInput): LocationOutcome {
  const loc = inp.location;
  const setting = loc.forecast_method ?? "auto";
  const load = loadRuns(inp.actuals);
  const custDays = setting === "learned" ? [] : inp.days.filter((d) => inp.customer.has(d));
  const learnedDays = setting === "customer"
    ? []
    : inp.days.filter((d) => setting === "learned" || !inp.customer.has(d));
  const learned = new Map<string, DayForecast>();
  if (learnedDays.length) {
    for (
      const f of forecastDays({
        cutoffMs: inp.cutoffMs,
        days: learnedDays,
        load,
        weather: inp.weather,
        site: inp.site,
        options: { leadSteps: SERVICE_LEAD_STEPS },
      })
    ) learned.set(f.day, f);
  }
  const pastCustomer = [...inp.customer].filter(([d]) => d < inp.days[0]);
  const corrected = custDays.length
    ? correctCustomerForecast({
      cutoffMs: inp.cutoffMs,
      days: custDays,
      load: loadValues(inp.actuals),
      customer: customerValues(
        new Map([...pastCustomer, ...custDays.map((d) => [d, inp.customer.get(d)!] as const)]),
      ),
    })
    : [];
  const madeAt = new Date(inp.cutoffMs).toISOString();
  const noWeather = !loc.weather_point
    ? "no weather point set for the location"
    : inp.weather.length === 0
    ? `no weather received for point ${loc.weather_point}`
    : null;
  const records = new Map<string, LearnedForecast | null>();
  const days: ForecastModelState["days"] = {};
  const stored = (day: string, values: number[], base: Omit<LearnedForecast, "values" | "by">) => {
    const prev = inp.learned.get(day) ?? null;
    const next: LearnedForecast = { values, ...base, by: inp.by };
    // After the gate closure the day-ahead values stay beside the intraday ones.
    const gate = inp.gateOf(day);
    if (prev && inp.cutoffMs >= gate) {
      const dayAhead = prev.day_ahead ?? (Date.parse(prev.made_at) < gate ? prev.values : null);
      if (dayAhead && !same(dayAhead, next.values)) next.day_ahead = dayAhead;
    }
    records.set(day, next);
  };
  for (const day of inp.days) {
    const f = learned.get(day);
    if (f) {
      if (f.method === "learned_without_weather" && noWeather) {
        f.reason = `${noWeather}; ${f.reason}`;
      }
      days[day] = { method: f.method, reason: f.reason };
      if (f.values) {
        stored(day, f.values, {
          method: f.method as LearnedForecast["method"],
          reason: f.reason,
          made_at: madeAt,
          customer_received_at: null,
          replaces_customer: setting === "learned",
        });
      } else records.set(day, null);
      continue;
    }
    const c = corrected.find((x) => x.day === day);
    const cust = inp.customer.get(day);
    if (c && c.method === "customer_corrected" && cust) {
      days[day] = { method: "customer_corrected", reason: c.reason };
      stored(day, c.values!, {
        method: "customer_corrected",
        reason: c.reason,
        made_at: madeAt,
        customer_received_at: cust.received_at,
        replaces_customer: true,
      });
      continue;
    }
    days[day] = cust ? { method: "customer", reason: c?.reason ?? "the customer's forecast" } : {
      method: "no_customer_forecast",
      reason: `forecast_method customer, and no customer forecast for ${day} yet`,
    };
    records.set(day, null);
  }
  for (const day of inp.days) days[day].hash = forecastHash(records.get(day) ?? null);
  const { evaluation, replayed } = evaluate(inp, load);
  const modelOf = learned.get(inp.nextDay)?.model ??
    [...learned.values()].find((f) => f.model)?.model ?? null;
  const verdict = corrected.find((c) => c.mae)?.mae;
  return {
    state: {
      malo_id: loc.malo_id,
      location: {
        name: loc.name,
        direction: loc.direction,
        weather_point: loc.weather_point,
        holiday_region: loc.holiday_region,
        forecast_method: loc.forecast_method,
        updated_at: loc.updated_at,
      },
      holiday_region: inp.region,
      refreshed_at: madeAt,
      fingerprint: inp.fingerprint,
      days,
      next_day: inp.nextDay,
      model: modelOf ? storedModel(modelOf) : null,
      correction: verdict
        ? {
          used: corrected.some((c) => c.method === "customer_corrected"),
          customer_mae_kw: verdict.customer,
          corrected_mae_kw: verdict.corrected,
          days: verdict.days,
        }
        : null,
      evaluation,
    },
    records,
    replayed,
  };
}

/**
 * The last 28 days' errors: the entries still current, and each day of {@link daysToEvaluate}
 * with the forecast the location had for it at its gate closure — its stored day-ahead learned
 * forecast, or, where it had none, the model replayed at that gate closure with what was received
 * before it (only for the days in `replays`).
 */
function evaluate(
  inp: LocationInput,
  load: ReturnType<typeof loadRuns>,
): { evaluation: EvaluatedDay[]; replayed: number } {
  const today = inp.days[0];
  const first = shiftDay(today, -EVALUATION_DAYS);
  const todo = new Set(daysToEvaluate(today, inp.actuals, inp.previous));
  const out = (inp.previous?.evaluation ?? []).filter((e) => e.day >= first && !todo.has(e.day));
  let replayed = 0;
  for (const day of todo) {
    const rec = inp.learned.get(day);
    const gate = inp.gateOf(day);
    let model: number[] | null = null;
    let from: EvaluatedDay["from"] = "day_ahead";
    if (rec && rec.method !== "customer_corrected") {
      model = rec.day_ahead ?? (Date.parse(rec.made_at) < gate ? rec.values : null);
    }
    if (!model && inp.replays.has(day)) {
      const [f] = forecastDays({
        cutoffMs: gate,
        days: [day],
        load,
        weather: inp.replays.get(day)!,
        site: inp.site,
        options: { leadSteps: SERVICE_LEAD_STEPS },
      });
      replayed++;
      model = f.values;
      from = "replayed";
    }
    if (!model && !inp.replays.has(day)) continue; // neither kept nor replayed yet
    out.push(errorsOf(inp, day, model, from));
  }
  out.sort((a, b) => a.day.localeCompare(b.day));
  return { evaluation: out, replayed };
}

/** The errors of one day: the model and the week before on the same quarter-hours, the customer's on its own. */
function errorsOf(
  inp: LocationInput,
  day: string,
  model: readonly number[] | null,
  from: EvaluatedDay["from"],
): EvaluatedDay {
  const actual = inp.actuals.get(day)!;
  const d = localDay(day);
  const week = inp.actuals.get(shiftDay(day, -7));
  const wd = localDay(shiftDay(day, -7));
  const cust = inp.customer.get(day)?.values;
  const m = { n: 0, abs: 0 }, w = { n: 0, abs: 0 }, c = { n: 0, abs: 0 };
  for (let i = 0; i < d.length; i++) {
    const a = actual.kwh[i] * 4;
    const b = week ? week.kwh[wd.indexOfSlot[d.slots[i]]] * 4 : NaN;
    const f = model ? model[i] : NaN;
    if (f === f && b === b && model) {
      m.n++, m.abs += Math.abs(f - a);
      w.n++, w.abs += Math.abs(b - a);
    } else if (b === b && !model) {
      w.n++, w.abs += Math.abs(b - a);
    }
    const x = cust && cust.length === d.length ? cust[i] : NaN;
    if (x === x) c.n++, c.abs += Math.abs(x - a);
  }
  return {
    day,
    actuals_at: actual.updated_at,
    from,
    model: model ? m : null,
    week_before: w.n ? w : null,
    customer: c.n ? c : null,
  };
}

/** lib/forecasting's camelCase summary as the snake_case record. */
export function storedModel(m: ModelSummary): StoredModel {
  return {
    method: m.method,
    trained_at: m.trainedAt,
    lead_days: m.leadDays,
    window: m.window,
    features: m.features,
    coefficients: m.coefficients,
    in_sample_mae_kw: m.inSampleMae,
  };
}

/**
 * A stored forecast's fingerprint — its values, day-ahead values, method, reason and what it
 * stands for (not when or by whom it was made) — kept in the model record, so that a refit sees
 * which days' forecasts changed without reading them back; `null` for none.
 */
export function forecastHash(r: LearnedForecast | null): string | null {
  if (!r) return null;
  const bytes = (v: readonly number[] | undefined) =>
    new Uint8Array(Float64Array.from(v ?? []).buffer);
  const text = new TextEncoder().encode(
    `${r.method}|${r.reason}|${r.customer_received_at}|${r.replaces_customer}`,
  );
  return `${fnv1a(bytes(r.values))}${fnv1a(bytes(r.day_ahead))}${fnv1a(text)}`;
}

const same = (a: readonly number[], b: readonly number[]) =>
  a.length === b.length && a.every((v, i) => v === b[i]);
