/**
 * Wire shapes of the clearing list (docs/settlement.md, "Checking the settlement data"):
 * `GET /v1/settlement/months/{YYYY-MM}/clearing` ({@link ClearingListSchema}) and the mark
 * `PUT /v1/settlement/months/{YYYY-MM}/clearing/{control_area}` ({@link ClearingMarkBody}). Energy in
 * MWh per quarter-hour (consumption +), dates Europe/Berlin `YYYY-MM-DD`, instants ISO-8601 UTC.
 * @module
 */
import { z } from "zod";

/** The MaBiS dates of the month (lib/domain/mabis_calendar.ts). */
export const MabisDatesSchema = z.object({
  /** 18th working day after the month: the preliminary balancing-group sum. */
  preliminary_sum: z.string(),
  /** 29th working day after the month: the end of the main settlement. */
  main_settlement_end: z.string(),
  /** 42nd working day after the month: the final balancing-group sum. */
  final_sum: z.string(),
  /** The last day of the seventh month after the month: the end of the correction phase. */
  correction_end: z.string(),
});

/** One quarter-hour whose sum differs from ours by more than the tolerance. */
export const ClearingQuarterHourSchema = z.object({
  delivery_day: z.string(),
  /** ISO-8601 UTC start of the quarter-hour. */
  start: z.string(),
  /** Position in the day's quarter-hours, 0-based. */
  index: z.number().int(),
  /** The network operators' balancing-group sum, MWh. */
  sum_mwh: z.number(),
  /** Our market-location sum, MWh. */
  ours_mwh: z.number(),
  /** sum − ours, MWh. */
  difference_mwh: z.number(),
});

/** The operator's mark. */
const MarkSchema = z.object({
  status: z.enum(["checked", "objected"]),
  note: z.string(),
  /** The caller who marked it. */
  by: z.string(),
  at: z.string(),
  fingerprint: z.string(),
  /** False when the list has changed since the mark was made: it is open again. */
  holds: z.boolean(),
});

/** The clearing list of one control area. */
export const ClearingAreaSchema = z.object({
  control_area: z.string(),
  /** TSO short name, e.g. `Amprion`. */
  name: z.string(),
  /** Where the area's sum comes from: network operator (MP-ID), balancing area or metering point. */
  sources: z.array(z.object({
    network_operator: z.string().nullable(),
    balancing_area: z.string().nullable(),
    metering_point: z.string().nullable(),
  })),
  days_compared: z.number().int(),
  quarter_hours_compared: z.number().int(),
  /** The quarter-hours over the tolerance, by day and time. */
  quarter_hours: z.array(ClearingQuarterHourSchema),
  /** Σ difference of the listed quarter-hours, MWh. */
  difference_mwh: z.number(),
  /** `open` until marked `checked` or `objected` (and again once the list changed). */
  status: z.enum(["open", "checked", "objected"]),
  mark: MarkSchema.nullable(),
  /** Identifies the list as it is now; a mark names the one it was made on. */
  fingerprint: z.string(),
});

/** `GET /v1/settlement/months/{YYYY-MM}/clearing`. */
export const ClearingListSchema = z.object({
  month: z.string(),
  /** The tolerance per quarter-hour, kWh (`clearing_tolerance_kwh`). */
  tolerance_kwh: z.number(),
  mabis: MabisDatesSchema,
  areas: z.array(ClearingAreaSchema),
});
/** The clearing list of a month. */
export type ClearingList = z.infer<typeof ClearingListSchema>;

/** `PUT /v1/settlement/months/{YYYY-MM}/clearing/{control_area}`: the operator's mark. */
export const ClearingMarkBody = z.strictObject({
  status: z.enum(["checked", "objected"]),
  /** Why: what explains the differences, or to whom and why the operator objected. */
  note: z.string().trim().min(1).max(2000),
  /** The fingerprint of the list the operator looked at (from the GET): refused if it changed. */
  fingerprint: z.string().min(1).max(64),
});
