/**
 * Wire shape of `GET /v1/delivery-days/{day}/schedules/{control_area}/versions`
 * (docs/intraday.md, "Version history"): every schedule version of one day and control area that
 * left for the TSO, oldest first, with its phase, when it was sent, the first open quarter-hour at
 * sending and what the TSO answered. One zod schema for the route, the OpenAPI document and the
 * browser's type.
 * @module
 */
import { z } from "zod";
import { TsoStateSchema } from "./schedule_responses.ts";

/** One sent version. */
export const ScheduleVersionSchema = z.object({
  /** Message version (ESS `MessageVersion`, CIM `revisionNumber`). */
  version: z.number().int(),
  /** Aggregate version whose open position it carries in its open quarter-hours. */
  aggregate_version: z.number().int(),
  /**
   * `day_ahead` before the TSO deadline, `intraday` from it on, `post_delivery` a correction after
   * delivery (docs/post-delivery.md).
   */
  phase: z.enum(["day_ahead", "intraday", "post_delivery"]),
  /** ISO-8601 UTC instant it was handed over. */
  sent_at: z.string(),
  /** ISO-8601 UTC start of the first open quarter-hour at sending (the day's end: none). */
  frozen_before: z.string(),
  /** BDEW file name. */
  file: z.string(),
  tso_status: TsoStateSchema,
  reason_code: z.string().nullable(),
  reason_text: z.string().nullable(),
  /** ISO-8601 UTC instant of the TSO's last answer about it; `null` before any. */
  answered_at: z.string().nullable(),
});
/** One sent version. */
export type ScheduleVersionView = z.infer<typeof ScheduleVersionSchema>;

/** The version history of one day and control area. */
export const ScheduleVersionsSchema = z.object({
  delivery_day: z.string(),
  control_area: z.string(),
  /**
   * The version the TSO has: the newest one it has not rejected (`null`: none sent, or all
   * rejected).
   */
  standing_version: z.number().int().nullable(),
  /** MW per quarter-hour of the standing version (consumption +, 3 decimals); `null`: none. */
  standing_quantities: z.array(z.number()).nullable(),
  versions: z.array(ScheduleVersionSchema),
});
/** The version history of one day and control area. */
export type ScheduleVersions = z.infer<typeof ScheduleVersionsSchema>;
