/**
 * A schedule entry of a day as `GET /v1/console/delivery-days` lists it (lib/wire/delivery_days.ts):
 * version 7 of an intraday day, sent 10:13 Berlin on Tue 24 Nov 2026, frozen before 10:30,
 * confirmed, nothing locked — for the console's intraday and attention tests.
 */
import type { DayOverview } from "../../lib/wire/delivery_days.ts";

/** One schedule entry of a day's overview. */
export type ScheduleEntry = DayOverview["schedules"][number];

/** The entry of `area` (its EIC is also the receiver), `file` named, with `over` on top. */
export function intradayEntry(
  area: string,
  file: string,
  over: Partial<ScheduleEntry> = {},
): ScheduleEntry {
  return {
    control_area: area,
    receiver: area,
    version: 7,
    file,
    tso_status: "confirmed",
    reason_code: null,
    reason_text: null,
    at: "2026-11-24T09:13:10Z",
    phase: "intraday",
    sent_at: "2026-11-24T09:13:00Z",
    frozen_before: "2026-11-24T09:30:00Z",
    locked_deviation_mwh: 0,
    ...over,
  };
}
