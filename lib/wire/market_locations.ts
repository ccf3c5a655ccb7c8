/**
 * Wire shapes of market-location master data (docs/pipeline.md, "Market locations"): the path
 * parameter, the request bodies of the single and the batch upsert, and the stored record as
 * answered. One zod schema per shape.
 * @module
 */
import { z } from "zod";
import { eicProblem } from "../domain/eic.ts";
import { holidayRegionProblem } from "../domain/holiday_regions.ts";
import { maloProblem } from "../domain/malo.ts";
import { weatherPointProblem } from "../domain/weather_point.ts";
import { PROFILE_CODES } from "../domain/slp/profile_codes.ts";

/**
 * A string checked by `problem` (its words, or `undefined` when valid): a custom issue of type
 * `type` with the message `prefix: problem`. A plain check, not a refinement: a batch of 500
 * locations runs it 1,000 times, and zod's refinement context costs an allocation each.
 */
function checkedString(problem: (v: string) => string | undefined, prefix: string, type: string) {
  return z.string().check((ctx) => {
    const p = problem(ctx.value);
    if (p) {
      // `continue`: as a refinement's issue, so the object's own checks still run and report.
      ctx.issues.push({
        code: "custom",
        input: ctx.value,
        message: `${prefix}: ${p}`,
        params: { type },
        continue: true,
      });
    }
  });
}

/** Path parameter: a MaLo-ID with a valid check digit. */
export const MaloId = checkedString(maloProblem, "not a valid MaLo-ID", "value_error.malo_id");

/** An EIC with a valid check character. */
export const Eic = checkedString(eicProblem, "not a valid EIC", "value_error.eic");

/**
 * How a location's forecast is made (docs/weather.md, "Market locations"): `customer` (the
 * customer's forecast), `learned` (a model fitted on its actuals and weather), or `auto` (the
 * default): the profile for a standard-load-profile location, else the customer's forecast where
 * there is one, else the learned forecast.
 */
export const FORECAST_METHODS = ["customer", "learned", "auto"] as const;

/** A weather point id (`lib/domain/weather_point.ts`): `lat,lon` with two decimals, or a name. */
export const WeatherPointId = checkedString(
  weatherPointProblem,
  "not a weather point id",
  "value_error.weather_point",
);

/** The fields of a market location, as sent. */
const LOCATION_FIELDS = {
  control_area: Eic,
  direction: z.enum(["consumption", "generation"]),
  standard_load_profile: z.enum(PROFILE_CODES).optional(),
  annual_kwh: z.number().positive().max(1e10).optional(),
  name: z.string().max(200).optional(),
  /** The weather point whose weather the location's learned forecast uses; it must have weather. */
  weather_point: WeatherPointId.optional(),
  /** Public holidays of the location: `DE` or `DE-<state>` (date-holidays' states of Germany). */
  holiday_region: checkedString(
    holidayRegionProblem,
    "not a holiday region",
    "value_error.holiday_region",
  ).optional(),
  forecast_method: z.enum(FORECAST_METHODS).optional(),
};

/** A profile needs its annual energy (docs/pipeline.md, "Market locations"). */
function profileNeedsEnergy(
  ctx: z.core.ParsePayload<{ standard_load_profile?: string; annual_kwh?: number }>,
): void {
  const v = ctx.value;
  if (v.standard_load_profile && v.annual_kwh === undefined) {
    ctx.issues.push({
      code: "custom",
      input: v,
      path: ["annual_kwh"],
      message: "required with standard_load_profile (annual energy in kWh)",
      params: { type: "missing" },
      continue: true,
    });
  }
}

/** Body of `PUT /v1/market-locations/{malo_id}`. */
export const MarketLocationInput = z.strictObject(LOCATION_FIELDS).check(profileNeedsEnergy);

/** One item of the batch upsert: the MaLo-ID and the fields. */
export const MarketLocationItem = z.strictObject({ malo_id: MaloId, ...LOCATION_FIELDS })
  .check(profileNeedsEnergy);

/** A stored market location: the input fields, the MaLo-ID and `updated_at` (ISO-8601 UTC). */
export const MarketLocationSchema = z.object({
  malo_id: z.string(),
  control_area: z.string(),
  direction: z.enum(["consumption", "generation"]),
  standard_load_profile: z.enum(PROFILE_CODES).optional(),
  annual_kwh: z.number().optional(),
  name: z.string().optional(),
  weather_point: z.string().optional(),
  holiday_region: z.string().optional(),
  /** `auto` when none was set. */
  forecast_method: z.enum(FORECAST_METHODS),
  updated_at: z.string(),
});

/** Largest batch of `PUT /v1/market-locations` (one KV atomic). */
export const MAX_LOCATION_BATCH = 500;

/** Body of the batch upsert: `{market_locations: [{malo_id, ...fields}]}`. */
export const MarketLocationBatch = z.strictObject({
  market_locations: z.array(MarketLocationItem).min(1).max(
    MAX_LOCATION_BATCH,
    `at most ${MAX_LOCATION_BATCH} market locations per request`,
  ),
});
