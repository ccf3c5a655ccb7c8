/**
 * Wire shape of `attention` in `GET /v1/console/status` (docs/console_attention.md): what needs
 * the operator, one item per fact, worst first. Scripts and alerts read the same items the console
 * shows at the top of the page. The list of codes grows (e.g. intraday codes): a reader ignores a
 * code it does not know and goes by `level`.
 * @module
 */
import { z } from "zod";

/**
 * Every code an item can carry (docs/console_attention.md):
 * `tso_rejected`, `tso_anomaly` (error, per control area, with the TSO's reason),
 * `step_failing` (error, a step's last attempt failed), `deadline_missed` (error, tomorrow's
 * TSO deadline passed with nothing sent; warn, for the rest of the day, when a day's first version
 * went out after its TSO deadline, with the time it went out), `orchestrator_failing` (error, three passes in a row failed),
 * `rejected_answer` (warn, an answer file the inbox import moved to `rejected/`, naming the file and
 * the reason, until acknowledged or a newer answer for its day and area arrives; `file` names it),
 * `schedule_outdated` (warn, new input after the schedule was sent: the TSO has an older
 * aggregate), `missing_forecasts` (warn from when forecasts are due, by default the TSO
 * deadline the day before; info before; consecutive days with the same count are one item), `orchestrator_stopped` (warn), `locked_deviation` (warn,
 * today: at least 0.1 MWh left between the open position and the schedule the TSO has in the
 * frozen quarter-hours; one item for all such areas of the day, each with its amount),
 * `no_forecast` (warn, a metered location has no learned forecast for the next day-ahead day, with
 * why: "3 of 14 days of actuals"), `forecast_fallback` (info, its forecast is a labelled fallback:
 * the load of 7 days before, or the model without weather; docs/forecasting.md),
 * `status_requested` (warn, a status request about the current version unanswered; areas asked
 * about the same version at the same minute are one item), `clearing_open` (warn, a month's
 * clearing list of a control area whose balancing-group sums arrived after its last mark, with the
 * end of the MaBiS main settlement; `control_area` names it), `awaiting_answer`
 * (info, the current version is sent, not every TSO answered), `not_sent_yet` (info, tomorrow,
 * deadline ahead), `all_confirmed` (ok, one line: every schedule of today and/or tomorrow confirmed in its
 * current version). Order: errors, warnings, the line of good news, information.
 */
export const ATTENTION_CODES = [
  "tso_rejected",
  "tso_anomaly",
  "step_failing",
  "deadline_missed",
  "orchestrator_failing",
  "rejected_answer",
  "schedule_outdated",
  "missing_forecasts",
  "no_forecast",
  "orchestrator_stopped",
  "forecast_fallback",
  "locked_deviation",
  "status_requested",
  "clearing_open",
  "awaiting_answer",
  "not_sent_yet",
  "all_confirmed",
] as const;

/** One item. */
export const AttentionItemSchema = z.object({
  code: z.enum(ATTENTION_CODES),
  /** `error` red, `warn` amber, `info` neutral, `ok` green. */
  level: z.enum(["error", "warn", "info", "ok"]),
  /** The delivery day concerned (`YYYY-MM-DD`); `null` for the service as a whole. */
  delivery_day: z.string().nullable(),
  /** The control area's EIC, for items about one area. */
  control_area: z.string().optional(),
  /**
   * Every control area's EIC, in the overview's order, when an item covers several of one day
   * (`locked_deviation` with each area's amount in the message, `status_requested` asked together);
   * `control_area` is absent then.
   */
  control_areas: z.array(z.string()).optional(),
  /**
   * Every day an item speaks of when it covers several (missing forecasts of consecutive days,
   * `all_confirmed` of today and tomorrow); `delivery_day` is the first of them.
   */
  days: z.array(z.string()).optional(),
  /** The inbox file of a `rejected_answer` item (what its acknowledgement names). */
  file: z.string().optional(),
  /** A sentence for people; times in Europe/Berlin. */
  message: z.string(),
});
/** One item. */
export type AttentionItem = z.infer<typeof AttentionItemSchema>;
/** One of {@link ATTENTION_CODES}. */
export type AttentionCode = AttentionItem["code"];
/** One of the levels. */
export type AttentionLevel = AttentionItem["level"];
