/**
 * The delivery days as the console shows them (docs/console.md, "Rows"): the stored days' overview
 * entries with their schedules' TSO status, and entries for today and tomorrow (Berlin) when no
 * state is stored for them, so "nothing sent" and "missed" have a row. Shared by
 * `GET /v1/console/delivery-days` and the attention list of `GET /v1/console/status`.
 * @module
 */
import type { EffectiveConfig } from "../config/fields.ts";
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

/** The runtime settings the overview is read with (`lib/config/fields.ts`). */
export type ConsoleDaysConfig =
  & Pick<
    EffectiveConfig,
    "gate_closure_local_time" | "tso_deadline_local_time" | "intraday_lead_minutes"
  >
  & Partial<Pick<EffectiveConfig, "forecast_due_local_time">>;

/**
 * Reads the overview.
 * @param cfg gate closure and TSO deadline (`HH:MM`, Europe/Berlin, the day before delivery; the
 *   TSO deadline is that of a day with nothing sent, docs/console.md, "Rows") and the intraday lead
 *   time (minutes: what the schedules show as frozen); `forecast_due_local_time` (`HH:MM` the day
 *   before, default the TSO deadline): from when missing forecasts are a warning
 * @param opts.from only days from this date on (`YYYY-MM-DD`); default all (the newest 60)
 */
export async function consoleDays(
  kv: Deno.Kv,
  cfg: ConsoleDaysConfig,
  nowMs: number,
  opts: { from?: string } = {},
): Promise<ConsoleDays> {
  const gateClosureLocalTime = cfg.gate_closure_local_time;
  const leadMinutes = cfg.intraday_lead_minutes;
  const deadlines = (day: string) => {
    const d = deliveryDay(day);
    return {
      tso_deadline: tsoDeadline(d, cfg.tso_deadline_local_time).toString(),
      // Missing forecasts are a warning from here on (docs/console_attention.md).
      forecasts_due: tsoDeadline(d, cfg.forecast_due_local_time ?? cfg.tso_deadline_local_time)
        .toString(),
      schedules_open_until: lastQuarterHourStart(d).subtract({ minutes: leadMinutes }).toString(),
      intraday_lead_minutes: leadMinutes,
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
