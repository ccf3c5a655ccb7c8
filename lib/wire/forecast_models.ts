/**
 * Wire shapes of the learned forecasts' models (docs/forecasting.md, "In the service"):
 * `GET /v1/market-locations/{malo_id}/forecast-model` (one location: method, trained at, window,
 * features, coefficients, in-sample and last-28-days errors beside the "7 days before" baseline
 * and the customer forecast) and `GET /v1/console/forecast-models` (a page of every metered
 * location's method and errors, for the console). Errors are mean absolute errors in kW (average
 * power over a quarter-hour, the forecasts' unit). One zod schema per shape.
 * @module
 */
import { z } from "zod";

/** What a day's forecast of a metered location came to. */
export const DAY_METHODS = [
  "learned",
  "learned_without_weather",
  "load_7_days_before",
  "none",
  "customer",
  "customer_corrected",
  "no_customer_forecast",
] as const;

/** A mean absolute error over some of the last 28 days, kW; `null` where there was nothing to compare. */
const Mae = z.object({
  mae_kw: z.number().describe("mean absolute error, kW"),
  days: z.number().int().describe("days of the last 28 it is taken over"),
}).nullable();

/** The last 28 days' errors. */
const Last28 = z.object({
  /** The model's forecast of each day as made at its gate closure, on the quarter-hours where the baseline exists too. */
  model: Mae,
  /** The load of the same quarter-hour 7 days before, on the same quarter-hours as the model. */
  week_before: Mae,
  /** The customer's forecast (its latest before the day), where it sent one. */
  customer: Mae,
  /** Of the days the model is judged on, those replayed now as the service would have made them. */
  replayed_days: z.number().int(),
});

/** The fitted model. */
const ModelSchema = z.object({
  method: z.enum(["learned", "learned_without_weather"]),
  trained_at: z.string().describe("the cut-off it was fitted at, ISO-8601 UTC"),
  lead_days: z.number().int().describe("days between the forecast day and its latest actuals"),
  window: z.object({
    first: z.string(),
    last: z.string(),
    days: z.number().int(),
    rows: z.number().int().describe("quarter-hours fitted"),
  }),
  features: z.array(z.string()),
  coefficients: z.record(z.string(), z.number()).describe(
    "intercept and one per feature, kW per the feature's unit",
  ),
  in_sample_mae_kw: z.number(),
});

/** `GET /v1/market-locations/{malo_id}/forecast-model` → 200. */
export const ForecastModelSchema = z.object({
  market_location_id: z.string(),
  name: z.string().nullable(),
  /** The location's setting (`auto` when not set). */
  forecast_method: z.enum(["customer", "learned", "auto"]),
  /** The day the fields below speak of: the next day whose gate closure is ahead. */
  delivery_day: z.string(),
  /** What that day's forecast came to, and why. */
  method: z.enum(DAY_METHODS),
  reason: z.string(),
  /** When the forecast step last made the location's forecasts, ISO-8601 UTC. */
  refreshed_at: z.string(),
  weather_point: z.string().nullable(),
  holiday_region: z.string(),
  /** The model of that day (or of the first learned day of the horizon); `null`: none fitted. */
  model: ModelSchema.nullable(),
  last_28_days: Last28,
  /** The customer correction's verdict over the last 28 days (a location with customer forecasts). */
  correction: z.object({
    used: z.boolean(),
    customer_mae_kw: z.number(),
    corrected_mae_kw: z.number(),
    days: z.number().int(),
  }).nullable(),
  /** Every day of the horizon. */
  days: z.array(z.object({
    delivery_day: z.string(),
    method: z.enum(DAY_METHODS),
    reason: z.string(),
  })),
});
/** The forecast-model answer. */
export type ForecastModelBody = z.infer<typeof ForecastModelSchema>;

/** One row of `GET /v1/console/forecast-models`. */
export const ForecastModelRowSchema = ForecastModelSchema.pick({
  market_location_id: true,
  name: true,
  forecast_method: true,
  delivery_day: true,
  method: true,
  reason: true,
  refreshed_at: true,
  last_28_days: true,
  correction: true,
});
/** One row. */
export type ForecastModelRow = z.infer<typeof ForecastModelRowSchema>;

/** `GET /v1/console/forecast-models` → 200: a page, and what the last refresh did. */
export const ForecastModelPageSchema = z.object({
  forecast_models: z.array(ForecastModelRowSchema),
  next_after: z.string().nullable(),
  /** The last refresh: when, how many metered locations, by method of the next day; `null`: none ran. */
  summary: z.object({
    refreshed_at: z.string(),
    delivery_day: z.string(),
    locations: z.number().int(),
    by_method: z.record(z.string(), z.number().int()),
  }).nullable(),
});
/** The page. */
export type ForecastModelPage = z.infer<typeof ForecastModelPageSchema>;
