/**
 * The delivery days as the console shows them (docs/console.md, "Rows"): the stored days' overview
 * entries with their schedules' TSO status, and entries for today and tomorrow (Berlin) when no
 * state is stored for them, so "nothing sent" and "missed" have a row. Shared by
 * `GET /v1/console/delivery-days` and the attention list of `GET /v1/console/status`.
 * @module
 */
import { lastQuarterHourStart, tsoDeadline } from "../domain/deadlines.ts";
import { deliveryDay } from "../domain/delivery_day.ts";
import { emptyDay, listDays, overview } from "../pipeline/day_state.ts";
import { scheduleEntries } from "../pipeline/schedule_view.ts";
import type { DayOverview } from "../wire/delivery_days.ts";
import { addDays, berlinDate } from "./day_texts.ts";

/** What the console's overview is built from. */
export interface ConsoleDays {
  /** Today's date in Berlin (`YYYY-MM-DD`) by the service's clock. */
  today: string;
  /** The newest 60 stored days, oldest first. */
  delivery_days: DayOverview[];
  /** Today and tomorrow when no state is stored for them (no step, no schedule). */
  without_state: DayOverview[];
}

/**
 * Reads the overview.
 * @param gateClosureLocalTime `HH:MM`, Europe/Berlin, the day before delivery
 * @param leadMinutes the intraday lead time (minutes): what the schedules show as frozen
 * @param tsoDeadlineLocalTime `HH:MM`, Europe/Berlin, the day before: the deadline of a day with
 *   nothing sent (docs/console.md, "Rows"); default `14:30`
 * @param opts.from only days from this date on (`YYYY-MM-DD`); default all (the newest 60)
 */
export async function consoleDays(
  kv: Deno.Kv,
  gateClosureLocalTime: string,
  leadMinutes: number,
  nowMs: number,
  opts: { from?: string; tsoDeadlineLocalTime?: string } = {},
): Promise<ConsoleDays> {
  const deadlines = (day: string) => {
    const d = deliveryDay(day);
    return {
      tso_deadline: tsoDeadline(d, opts.tsoDeadlineLocalTime ?? "14:30").toString(),
      schedules_open_until: lastQuarterHourStart(d).subtract({ minutes: leadMinutes }).toString(),
    };
  };
  const today = berlinDate(nowMs);
  const stored = (await listDays(kv)).filter((d) => !opts.from || d.delivery_day >= opts.from)
    .slice(-60);
  const delivery_days = await Promise.all(stored.map(async (d) => ({
    ...overview(d, nowMs, gateClosureLocalTime),
    ...deadlines(d.delivery_day),
    schedules: await scheduleEntries(kv, d.delivery_day, nowMs, leadMinutes),
  })));
  const known = new Set(stored.map((d) => d.delivery_day));
  const without_state = [today, addDays(today, 1)].filter((d) => !known.has(d))
    .map((d) => ({ ...overview(emptyDay(d), nowMs, gateClosureLocalTime), ...deadlines(d) }));
  return { today, delivery_days, without_state };
}
