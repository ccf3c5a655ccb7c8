/**
 * Wire shape of the delivery-day overview (docs/pipeline.md, "Day state and staleness"): one
 * entry per day with each step's record, its staleness and the reason, and the gate closure.
 * One zod schema for the route, the OpenAPI document and the browser's type.
 * @module
 */
import { z } from "zod";

/** The last accepted input change of a day. */
export const InputChangeSchema = z.object({
  /** ISO-8601 UTC instant of the change. */
  at: z.string(),
  /** Caller name, or `orchestrator`. */
  by: z.string(),
  /** Number of market locations whose forecast (or master data) changed. */
  market_locations: z.number().int(),
  /**
   * `customer`: a customer forecast; `generated`: a profile or learned forecast the forecast
   * step made; `master_data`: market locations were added, changed or removed; `actuals`,
   * `weather`: actuals or weather that the learned forecasts read arrived (docs/pipeline.md, "Day
   * state and staleness"; `market_locations` is then the locations of the delivery, or for
   * weather the learned locations of its points).
   */
  source: z.enum(["customer", "generated", "master_data", "actuals", "weather"]),
});
/** The last accepted input change of a day. */
export type InputChange = z.infer<typeof InputChangeSchema>;

/** What a step recorded. */
export const StepRecordSchema = z.object({
  /** Input version the step consumed. */
  version: z.number().int(),
  /** ISO-8601 UTC instant. */
  at: z.string(),
  /** `orchestrator` or the caller's name. */
  by: z.string(),
  /** Step-specific facts (counts, file name, receipt…). */
  detail: z.record(z.string(), z.unknown()),
});
/** What a step recorded. */
export type StepRecord = z.infer<typeof StepRecordSchema>;

/** A step as shown in the overview. */
export const StepViewSchema = StepRecordSchema.extend({
  stale: z.boolean(),
  /** What arrived since, in words (times in Europe/Berlin); `null` when not stale. */
  stale_reason: z.string().nullable(),
});
/** A step as shown in the overview. */
export type StepView = z.infer<typeof StepViewSchema>;

/** The last failed attempt of a step since its last success. */
export const StepFailureSchema = z.object({
  /** ISO-8601 UTC instant of the failed attempt. */
  at: z.string(),
  /** What went wrong, in words (secrets masked). */
  message: z.string(),
  /** Failed attempts since the step's last success. */
  attempts: z.number().int(),
  /** When the orchestrator tries again (ISO-8601 UTC); `null` while it is stopped. */
  next_attempt_at: z.string().nullable(),
});
/** The last failed attempt of a step since its last success. */
export type StepFailure = z.infer<typeof StepFailureSchema>;

/** One overview entry. */
export const DayOverviewSchema = z.object({
  delivery_day: z.string(),
  quarter_hours: z.number().int(),
  /** ISO-8601 UTC instant. */
  gate_closure: z.string(),
  gate_closure_passed: z.boolean(),
  /**
   * ISO-8601 UTC instant of the TSO deadline of the day-ahead schedule (docs/intraday.md, 14:30
   * Berlin the day before by default). Sent by `GET /v1/console/delivery-days`; optional for
   * other producers of the shape (then gate closure is the day's deadline).
   */
  tso_deadline: z.string().optional(),
  /**
   * ISO-8601 UTC instant from which the day's missing forecasts are a warning
   * (`forecast_due_local_time` the day before, by default the TSO deadline; docs/console.md,
   * "Attention"); before it they are information. Optional for other producers of the shape.
   */
  forecasts_due: z.string().optional(),
  /**
   * ISO-8601 UTC instant from which no quarter-hour of the day is open any more (its last
   * quarter-hour's start minus the intraday lead time): until then a schedule version can go out.
   */
  schedules_open_until: z.string().optional(),
  /**
   * The intraday lead time in minutes (`intraday_lead_minutes`): quarter-hours starting before
   * now + this are frozen; the console moves "frozen until" and the chart's shading with it.
   */
  intraday_lead_minutes: z.number().int().optional(),
  input_version: z.number().int(),
  last_input: InputChangeSchema.nullable(),
  steps: z.object({
    forecast: StepViewSchema.nullable(),
    aggregated: StepViewSchema.nullable(),
    published: StepViewSchema.nullable(),
    submitted: StepViewSchema.nullable(),
  }),
  /**
   * Per control area of the latest aggregate: energy in MWh (purchase = the positive
   * quarter-hours, sale = the magnitude of the negative ones) and the peak in MW (signed); `{}`
   * before the first aggregate.
   */
  totals: z.record(
    z.string(),
    z.object({ purchase_mwh: z.number(), sale_mwh: z.number(), peak_mw: z.number() }),
  ),
  /**
   * What the operator must know about the day's data: today market locations left without any
   * forecast by the latest aggregate (`share`: of the day's market locations, 0–1), and by energy
   * (docs/console_attention.md, "Missing forecasts by energy"): `energy_share` (0–1) = `missing_mwh` /
   * `expected_mwh`, the day's expected energy (MWh, by absolute value) of the locations whose
   * energy is known; `energy_unknown_locations` of the missing ones have no load profile, so their
   * energy is unknown and in neither figure; `energy_share` is `null` when no energy is known.
   */
  warnings: z.array(z.object({
    code: z.literal("missing_forecasts"),
    market_locations: z.number().int(),
    share: z.number(),
    energy_share: z.number().nullable(),
    missing_mwh: z.number().nullable(),
    expected_mwh: z.number().nullable(),
    energy_unknown_locations: z.number().int(),
  })),
  /**
   * Per control area, the latest schedule document handed to its TSO and what the TSO made of it
   * (`[]` before the first one).
   */
  schedules: z.array(z.object({
    control_area: z.string(),
    receiver: z.string(),
    version: z.number().int(),
    file: z.string(),
    tso_status: z.enum(["sent", "acknowledged", "rejected", "confirmed", "anomaly"]),
    reason_code: z.string().nullable(),
    reason_text: z.string().nullable(),
    at: z.string(),
    /** The market platform's submission id (documents sent over `schedule_channel=platform`). */
    platform_id: z.string().optional(),
    /**
     * `day_ahead` or `intraday` (docs/intraday.md), `post_delivery` (docs/post-delivery.md);
     * `null` for a version without history. The route always sends the three; optional in the
     * type for older producers of the shape.
     */
    phase: z.enum(["day_ahead", "intraday", "post_delivery"]).nullable().optional(),
    /** ISO-8601 UTC instant the version was handed over; `null` without history. */
    sent_at: z.string().nullable().optional(),
    /** ISO-8601 UTC start of the first open quarter-hour at sending; `null` without history. */
    frozen_before: z.string().nullable().optional(),
    /**
     * ISO-8601 UTC instant the area's first version (v1) was handed over; `null` without history.
     * Later than `tso_deadline`: the day-ahead deadline was missed (`deadline_missed`).
     */
    first_sent_at: z.string().nullable().optional(),
    /**
     * MWh left between the open position and the schedule the TSO has in the quarter-hours
     * frozen now (energy the BRP can no longer schedule away); `null` before an aggregate.
     */
    locked_deviation_mwh: z.number().nullable().optional(),
    /**
     * The last status request (SRQ) about this version: when, which file, why (`ack`/`cnf`
     * overdue, `manual`), and whether the TSO's status changed since (docs/fahrplan.md).
     */
    status_request: z.object({
      at: z.string(),
      file: z.string(),
      state: z.enum(["ack", "cnf", "manual"]),
      answered: z.boolean(),
    }).nullable().optional(),
  })),
  /**
   * Per step, the last failed attempt since its last success (`null`: none). Beside `steps`,
   * because a step that never succeeded has no record there but may well have failed.
   */
  failures: z.object({
    forecast: StepFailureSchema.nullable(),
    aggregated: StepFailureSchema.nullable(),
    published: StepFailureSchema.nullable(),
    submitted: StepFailureSchema.nullable(),
  }),
});
/** One overview entry. */
export type DayOverview = z.infer<typeof DayOverviewSchema>;
