/**
 * Wire shapes of the settlement after delivery (docs/settlement.md):
 *
 * - `GET /v1/delivery-days/{day}/settlement` ({@link DaySettlementSchema}): per control area and
 *   UTC quarter-hour the net schedule, the day-ahead schedule, the actual, the imbalance, its
 *   reBAP price and cost, with totals, accuracy and completeness;
 * - `GET /v1/settlement/months/{YYYY-MM}` ({@link MonthSettlementSchema}): days × areas with
 *   imbalance energy and cost, the answer to "how did we do in March".
 *
 * Units: power in MW (consumption +, generation −), energy in MWh, prices in EUR/MWh, money in
 * EUR. Arrays have one entry per quarter-hour of the delivery day (92, 96 or 100), in the order of
 * `quarter_hours` (UTC starts). `null` wherever an input is missing — never a guessed zero.
 * Sign convention (reBAP, docs/settlement.md): imbalance > 0 is short (the balancing group took more
 * than scheduled), < 0 long; cost > 0 means the BRP pays.
 *
 * One zod schema per shape, shared by the route, the OpenAPI document and the console.
 * @module
 */
import { z } from "zod";

const nums = z.array(z.number().nullable());

/** Mean absolute error, bias and normalised MAE of one schedule against the actual. */
export const AccuracySchema = z.object({
  /** Mean of |schedule − actual| over quarter-hours with both known, MW; `null`: none known. */
  mae_mw: z.number().nullable(),
  /** Mean of (schedule − actual), MW: > 0 the schedule was too high (long). */
  bias_mw: z.number().nullable(),
  /** Σ|schedule − actual| × 0.25 h over Σ|actual| × 0.25 h, percent; `null`: no actual energy. */
  nmae_pct: z.number().nullable(),
});
/** Accuracy of one schedule. */
export type Accuracy = z.infer<typeof AccuracySchema>;

/** One of the worst quarter-hours (largest |imbalance|). */
export const WorstQuarterHourSchema = z.object({
  /** ISO-8601 UTC start of the quarter-hour. */
  start: z.string(),
  /** Position in the day's arrays, 0-based. */
  index: z.number().int(),
  schedule_mw: z.number().nullable(),
  actual_mw: z.number().nullable(),
  imbalance_mwh: z.number(),
  price_eur_mwh: z.number().nullable(),
  cost_eur: z.number().nullable(),
});

/**
 * Mean absolute deviation of one source of the metered locations' forecasts: every metered
 * location counts under one.
 */
export const DeviationSourceSchema = z.object({
  /**
   * `customer` (customer forecasts), `learned` (learned forecasts, docs/forecasting.md, "In the
   * service"; their labelled fallbacks included), `customer_corrected` (customer forecasts
   * corrected by their errors), a profile class (e.g. `H25`), or `none`: metered locations nobody
   * forecast (their whole actual is deviation).
   */
  source: z.string(),
  /** Metered market locations of this source that the deviation is computed over. */
  locations: z.number().int(),
  /** Mean over quarter-hours of |Σ forecast − Σ actual| of these locations, MW. */
  mad_mw: z.number().nullable(),
  /** Σ|forecast − actual| × 0.25 h of these locations, MWh (how much of the error is theirs). */
  abs_deviation_mwh: z.number().nullable(),
  /**
   * `learned` and `customer_corrected` only: what they saved against the forecast they replaced —
   * the load of the same quarter-hour 7 days before, or the customer's raw forecast —
   * Σ (|replaced − actual| − |forecast − actual|) × 0.25 h (MWh; negative: it did worse), valued at
   * each quarter-hour's |reBAP| (EUR; `null` without prices) over the quarter-hours where the
   * replaced forecast and the actual exist (docs/settlement.md, "What learned forecasts saved").
   */
  saved: z.object({
    replaced: z.enum(["load_7_days_before", "customer"]),
    mwh: z.number(),
    eur: z.number().nullable(),
    quarter_hours: z.number().int(),
    priced_quarter_hours: z.number().int(),
  }).optional(),
});

/** Substitute values of one method and reason (MSCONS `STS+Z32`, `STS+Z40`) in an actual. */
export const SubstituteKindSchema = z.object({
  /** Method code (`STS+Z32`), e.g. `Z92`; `null` when the sender gave none. */
  method: z.string().nullable(),
  /** The method in words, e.g. `interpolation`. */
  method_text: z.string(),
  /** Reason code (`STS+Z40`), e.g. `Z75`; `null` when the sender gave none. */
  reason: z.string().nullable(),
  /** The reason in words, e.g. `communication failure`. */
  reason_text: z.string(),
  /** Quarter-hours of the day with at least one such value. */
  quarter_hours: z.number().int(),
});

/** What the settlement of one area is built from, and whether it can still change. */
export const CompletenessSchema = z.object({
  /** Market locations with metered actuals for every quarter-hour of the day. */
  metered: z.number().int(),
  /** SLP market locations without metering, settled by their generated profile values. */
  profile_settled: z.number().int(),
  /** Metered (non-SLP) market locations without complete actuals. */
  missing: z.number().int(),
  /** Quarter-hours that have an imbalance price (both directions): reBAP or estimate. */
  priced_quarter_hours: z.number().int(),
  /**
   * Of those, quarter-hours priced by the TSOs' AEP estimate (the reBAP is published after
   * quality assurance, weeks after the month): their cost is an estimate.
   */
  estimated_quarter_hours: z.number().int(),
  /** Quarter-hours whose actual holds at least one substitute value (settled like true values). */
  substitute_quarter_hours: z.number().int(),
  /** The substitute values by method and reason, most quarter-hours first. */
  substitutes: z.array(SubstituteKindSchema),
  /** Quarter-hours whose actual holds at least one provisional value (`QTY+Z18`). */
  provisional_quarter_hours: z.number().int(),
  quarter_hours: z.number().int(),
  /**
   * `final` once every location is metered with no provisional value and every price is a reBAP,
   * else `provisional`.
   */
  status: z.enum(["provisional", "final"]),
});

/** Totals of one area (or of all areas) for the day. */
export const SettlementTotalsSchema = z.object({
  /** Σ positive imbalance, MWh (≥ 0). */
  short_mwh: z.number(),
  /** Σ |negative imbalance|, MWh (≥ 0). */
  long_mwh: z.number(),
  /** Σ cost over quarter-hours with a known cost, EUR (> 0: the BRP pays). */
  cost_eur: z.number(),
  /** The same for the last day-ahead version alone, EUR; `null`: no day-ahead version. */
  day_ahead_cost_eur: z.number().nullable(),
  /**
   * `day_ahead_cost_eur − cost_eur`: the imbalance cost the intraday versions avoided, gross —
   * before the cost of the energy they moved (what `intraday_saving_eur` was before), EUR.
   */
  imbalance_avoided_eur: z.number().nullable(),
  /**
   * Σ (schedule − day-ahead) × 0.25 h × price: what the energy the intraday versions bought (+) or
   * sold (−) cost at the BRP's own trade prices or ID AEP, EUR; `null` where energy moved at a
   * quarter-hour without either price.
   */
  intraday_energy_cost_eur: z.number().nullable(),
  /**
   * `imbalance_avoided_eur − intraday_energy_cost_eur`: what the intraday versions saved, net
   * (< 0: lost), EUR; `null` while the cost of the intraday energy is not known.
   */
  intraday_saving_eur: z.number().nullable(),
  /**
   * The imbalance cost post-delivery corrections moved to the counterparty (the cost against the
   * schedule that stood when delivery ended, less the cost against the corrected one), EUR;
   * `null` when no correction stands. Not part of what intraday saved.
   */
  post_delivery_moved_eur: z.number().nullable(),
});
/** Totals of one area or of the day. */
export type SettlementTotals = z.infer<typeof SettlementTotalsSchema>;

/** The settlement of one control area on one delivery day. */
export const AreaSettlementSchema = z.object({
  control_area: z.string(),
  /** TSO short name, e.g. `Amprion`. */
  name: z.string(),
  /** Version whose quantities are `schedule_mw` (last not rejected by the TSO); `null`: none. */
  schedule_version: z.number().int().nullable(),
  /** Net schedule (purchase − sale), MW. */
  schedule_mw: nums,
  /** Last day-ahead version; `null`: none sent. */
  day_ahead_version: z.number().int().nullable(),
  day_ahead_mw: nums,
  /** Net actual power, MW (consumption +, generation −). */
  actual_mw: nums,
  /** Where `actual_mw` comes from. */
  actual_source: z.enum(["balancing_group_sum", "market_locations"]),
  /** Our own market-location sum, MW, shown beside a balancing-group sum; else `null`. */
  market_location_actual_mw: nums.nullable(),
  /** (actual − schedule) × 0.25 h, MWh; > 0 short, < 0 long. */
  imbalance_mwh: nums,
  /**
   * Imbalance price of the direction (reBAP `unterdeckt` when short, `ueberdeckt` when long; or
   * the AEP estimate, one price for both), EUR/MWh.
   */
  price_eur_mwh: nums,
  /** Where each quarter-hour's price comes from: `rebap`, `aep_estimate`; `null`: no price. */
  price_source: z.array(z.enum(["rebap", "aep_estimate"]).nullable()),
  /** imbalance × price, EUR; > 0 the BRP pays. */
  cost_eur: nums,
  /** The cost had only the day-ahead version stood, EUR. */
  day_ahead_cost_eur: nums,
  /** (schedule − day-ahead) × 0.25 h: energy the intraday versions bought (+) or sold (−), MWh. */
  intraday_mwh: nums,
  /** The price that energy is valued at, EUR/MWh: own trades' volume-weighted price, or ID AEP. */
  intraday_price_eur_mwh: nums,
  /** Where that price comes from: `trades` (the BRP's own), `id_aep`; `null`: none known. */
  intraday_price_source: z.array(z.enum(["trades", "id_aep"]).nullable()),
  /** intraday_mwh × price, EUR: > 0 the BRP paid for energy bought intraday. */
  intraday_cost_eur: nums,
  totals: SettlementTotalsSchema,
  accuracy: z.object({
    schedule: AccuracySchema,
    day_ahead: AccuracySchema,
    /** At most ten quarter-hours, largest |imbalance| first. */
    worst: z.array(WorstQuarterHourSchema),
    /** Per profile class and `customer`, largest abs_deviation_mwh first. */
    by_source: z.array(DeviationSourceSchema),
  }),
  completeness: CompletenessSchema,
});
/** The settlement of one area. */
export type AreaSettlement = z.infer<typeof AreaSettlementSchema>;

/** `GET /v1/delivery-days/{day}/settlement`. */
export const DaySettlementSchema = z.object({
  /** Local date `YYYY-MM-DD` (Europe/Berlin). */
  delivery_day: z.string(),
  /** ISO-8601 UTC starts of the day's quarter-hours (92, 96 or 100). */
  quarter_hours: z.array(z.string()),
  /** ISO-8601 UTC instant the settlement was computed. */
  computed_at: z.string(),
  /** `final` only when every area is final. */
  status: z.enum(["provisional", "final"]),
  areas: z.array(AreaSettlementSchema),
  /** Over all areas. */
  totals: SettlementTotalsSchema,
  /**
   * The intraday index price ID AEP per quarter-hour, EUR/MWh (`null` where not known: too little
   * traded); `null` when none arrived for the day.
   */
  id_aep_eur_mwh: nums.nullable(),
});
/** The settlement of one delivery day. */
export type DaySettlement = z.infer<typeof DaySettlementSchema>;

/** One cell of the month view: one day and one area. */
export const MonthCellSchema = z.object({
  delivery_day: z.string(),
  control_area: z.string(),
  short_mwh: z.number(),
  long_mwh: z.number(),
  cost_eur: z.number(),
  day_ahead_cost_eur: z.number().nullable(),
  /** As in {@link SettlementTotalsSchema}: gross, the intraday energy's cost, net, corrections. */
  imbalance_avoided_eur: z.number().nullable(),
  intraday_energy_cost_eur: z.number().nullable(),
  intraday_saving_eur: z.number().nullable(),
  post_delivery_moved_eur: z.number().nullable(),
  status: z.enum(["provisional", "final"]),
  /**
   * Quarter-hours of the day with an actual in the area; 0: nothing measured yet (a day with only
   * a sent schedule), so the cell's 0 MWh and 0 EUR are no result.
   */
  actual_quarter_hours: z.number().int().nonnegative(),
});

/** `GET /v1/settlement/months/{YYYY-MM}`: every settled day of the month × area. */
export const MonthSettlementSchema = z.object({
  /** `YYYY-MM` (Europe/Berlin months). */
  month: z.string(),
  /** Control areas with at least one cell, EIC and short name. */
  areas: z.array(z.object({ control_area: z.string(), name: z.string() })),
  /** Days (ascending) × areas; a day without any settlement input is left out. */
  cells: z.array(MonthCellSchema),
  /** Σ over the cells. */
  totals: SettlementTotalsSchema,
});
/** The month view. */
export type MonthSettlement = z.infer<typeof MonthSettlementSchema>;

/** One metered location's forecast against its actual (`…/settlement/locations`). */
export const LocationDeviationSchema = z.object({
  malo_id: z.string(),
  direction: z.enum(["consumption", "generation"]),
  /** As in {@link DeviationSourceSchema}. */
  source: z.string(),
  /** Quarter-hours with an actual: the figures are over these. */
  quarter_hours: z.number().int(),
  /** Σ forecast × 0.25 h, MWh (as metered: no sign). */
  forecast_mwh: z.number(),
  actual_mwh: z.number(),
  /** Σ |forecast − actual| × 0.25 h, MWh. */
  abs_deviation_mwh: z.number(),
});

/** One metered location's deviation. */
export type LocationDeviationWire = z.infer<typeof LocationDeviationSchema>;

/** `GET /v1/delivery-days/{day}/settlement/locations?control_area=…`. */
export const LocationDeviationsSchema = z.object({
  delivery_day: z.string(),
  control_area: z.string(),
  /** Metered locations of the area with actuals on the day. */
  total: z.number().int(),
  /** The first `limit` of them, largest absolute deviation first. */
  locations: z.array(LocationDeviationSchema),
});
