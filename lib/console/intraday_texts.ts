/**
 * The intraday words of a delivery day (docs/console.md, "Intraday", docs/intraday.md): the phase
 * line of the schedules ("intraday v7 · frozen until 10:30 Berlin · 4 of 4 confirmed"), the
 * deviation left in the frozen quarter-hours in words, and whether a schedule version can still
 * go out. Pure (the clock is a parameter) and free of `Temporal`, like `day_texts.ts`, so the
 * server's attention list and the browser's rows say the same.
 * @module
 */
import type { DayOverview } from "../wire/delivery_days.ts";
import { tsoName } from "../fahrplan/tso_names.ts";
import { berlinDate, dayWord } from "./day_texts.ts";
import { energy, formatBerlinHm } from "./format.ts";

/** One schedule entry of the overview. */
export type ScheduleEntry = DayOverview["schedules"][number];

/**
 * MWh from which a locked deviation of today is an attention item (`locked_deviation`, warn):
 * 0.1 MWh, e.g. 0.4 MW over one quarter-hour — below it the deviation is rounding and small
 * forecast noise, above it imbalance energy worth an operator's look (docs/console.md).
 */
export const LOCKED_DEVIATION_MIN_MWH = 0.1;

/** `day-ahead`, `intraday` or `post-delivery correction`, as people write it. */
export function phaseLabel(phase: ScheduleEntry["phase"]): string {
  return phase === "intraday"
    ? "intraday"
    : phase === "day_ahead"
    ? "day-ahead"
    : phase === "post_delivery"
    ? "post-delivery correction"
    : "schedule";
}

/**
 * Where the frozen quarter-hours of a version end, in words: `frozen until 10:30 Berlin`; `every
 * quarter-hour frozen` when none was open at sending; `null` when nothing was frozen (sent before
 * the day, minus the lead time, began).
 * @param day the delivery day (`YYYY-MM-DD`, Berlin)
 * @param frozenBefore ISO-8601 UTC start of the first open quarter-hour at sending
 */
export function frozenText(day: string, frozenBefore: string | null | undefined): string | null {
  if (!frozenBefore) return null;
  const ms = Date.parse(frozenBefore);
  if (Number.isNaN(ms)) return null;
  const date = berlinDate(ms);
  if (date > day) return "every quarter-hour frozen";
  if (date < day || formatBerlinHm(frozenBefore) === "00:00") return null;
  return `frozen until ${formatBerlinHm(frozenBefore)} Berlin`;
}

/** One quarter-hour in ms; quarter-hours start at whole quarters of UTC (Berlin is UTC+1/+2). */
const QH_MS = 15 * 60_000;

/**
 * The start of the first quarter-hour still open at `nowMs` (ISO-8601 UTC): those starting before
 * now + the lead time are frozen (docs/intraday.md; as `frozenCount` of lib/domain/deadlines.ts).
 * @param leadMinutes `intraday_lead_minutes` (15–180)
 */
export function frozenNowBefore(nowMs: number, leadMinutes: number): string {
  return new Date(Math.ceil((nowMs + leadMinutes * 60_000) / QH_MS) * QH_MS).toISOString();
}

/**
 * The phase line of a day's schedules, of its newest version: `intraday v7 · frozen until 10:30
 * Berlin`, `day-ahead v1`; `v3–v7` when the areas stand at different versions. How many areas
 * confirmed it is the TSO summary's (`tsoSummary` of day_texts.ts), which stands beside it
 * wherever it is shown, so it is not said twice. `null` when no schedule was handed to a TSO. With
 * `frozenNow`
 * ({@link frozenNowBefore} of the clock and the day's `intraday_lead_minutes`), "frozen until" is
 * what is frozen now (moving with the clock), never earlier than the newest version's own frozen
 * part.
 */
export function phaseLine(day: DayOverview, frozenNow?: string): string | null {
  const list = day.schedules ?? [];
  if (!list.length) return null;
  const newest = [...list].sort((a, b) => (b.sent_at ?? b.at).localeCompare(a.sent_at ?? a.at))[0];
  const vs = list.map((s) => s.version);
  const lo = Math.min(...vs);
  const hi = Math.max(...vs);
  const frozen = frozenNow === undefined
    ? newest.frozen_before
    : [newest.frozen_before ?? "", frozenNow].sort().at(-1);
  return [
    `${phaseLabel(newest.phase)} ${lo === hi ? `v${hi}` : `v${lo}–v${hi}`}`,
    // A correction after delivery freezes nothing: every quarter-hour is past.
    newest.phase === "post_delivery" ? null : frozenText(day.delivery_day, frozen),
  ].filter(Boolean).join(" · ");
}

/** The area as people say it: the TSO's short name, else its EIC. */
export function areaName(area: string): string {
  return tsoName(area) ?? area;
}

/** MWh from which a deviation in the frozen quarter-hours is named under a day's schedules. */
export const LOCKED_DEVIATION_SHOWN_MWH = 0.05;

/**
 * The energy left in the frozen quarter-hours of a day's areas, said once: `2.40 MWh can no
 * longer be scheduled away in 50Hertz`, or for several areas `Can no longer be scheduled away:
 * 2.40 MWh in 50Hertz, 1.10 MWh in Amprion`; areas from {@link LOCKED_DEVIATION_SHOWN_MWH} on, in
 * the order given. `null` when no area reaches it (or no entry carries the figure).
 * @param locale of the numbers (`en` on the server)
 */
export function lockedDeviationText(
  list: readonly ScheduleEntry[],
  locale = "en",
): string | null {
  const shown = list.filter((s) => (s.locked_deviation_mwh ?? 0) >= LOCKED_DEVIATION_SHOWN_MWH);
  const amount = (s: ScheduleEntry) => energy(s.locked_deviation_mwh ?? 0, locale);
  if (!shown.length) return null;
  if (shown.length === 1) {
    return `${amount(shown[0])} can no longer be scheduled away in ${
      areaName(shown[0].control_area)
    }`;
  }
  return `Can no longer be scheduled away: ${
    shown.map((s) => `${amount(s)} in ${areaName(s.control_area)}`).join(", ")
  }`;
}

/**
 * `status requested 19:02, no answer yet` (or `…, answered`) for a version the service sent a
 * status request about (docs/fahrplan.md, "Status requests"); `null` when none was sent.
 */
export function statusRequestText(s: ScheduleEntry): string | null {
  const r = s.status_request;
  if (!r) return null;
  return `status requested ${formatBerlinHm(r.at)}, ${r.answered ? "answered" : "no answer yet"}`;
}

/**
 * True while a schedule version of the day can still go out at `nowMs`: some quarter-hour is open
 * beyond the lead time (`schedules_open_until`); without that field, until gate closure.
 */
export function schedulesOpen(day: DayOverview, nowMs: number): boolean {
  return day.schedules_open_until
    ? nowMs < Date.parse(day.schedules_open_until)
    : !day.gate_closure_passed;
}

/**
 * What comes next for a day with nothing sent once its TSO deadline has passed (docs/console.md,
 * "Rows"): while a quarter-hour is open, an intraday version — "next: an intraday version for the
 * quarter-hours from 19:15 Berlin" (today) or "… for every quarter-hour of the day" (tomorrow) —
 * else "no quarter-hour is open any more". `null` before the deadline (the countdown says it) or
 * without the day's `schedules_open_until` and `intraday_lead_minutes`.
 */
export function nextAfterDeadline(
  day: DayOverview,
  deadlineAt: string,
  nowMs: number,
): string | null {
  const lead = day.intraday_lead_minutes;
  if (Date.parse(deadlineAt) > nowMs || !day.schedules_open_until || lead === undefined) {
    return null;
  }
  if (Date.parse(day.schedules_open_until) < nowMs) return "no quarter-hour is open any more";
  const from = frozenNowBefore(nowMs, lead);
  const frozen = frozenText(day.delivery_day, from);
  return frozen
    ? `next: an intraday version for the quarter-hours from ${formatBerlinHm(from)} Berlin`
    : "next: an intraday version for every quarter-hour of the day";
}

/**
 * When a day's first schedule version went out after its TSO deadline (docs/console.md, "Rows"):
 * the earliest `first_sent_at` of its areas, if later than `tso_deadline`; else `null` (in time,
 * nothing sent, or a producer without the fields).
 */
export function lateFirstVersion(day: DayOverview): string | null {
  const firsts = (day.schedules ?? []).map((s) => s.first_sent_at).filter((x): x is string => !!x);
  if (!firsts.length || !day.tso_deadline) return null;
  const first = firsts.sort()[0];
  return Date.parse(first) > Date.parse(day.tso_deadline) ? first : null;
}

/**
 * A missed TSO deadline in words, each instant with its day said relative to now: "TSO deadline
 * missed — due 14:30 Berlin yesterday, first version sent 13:40 Berlin today" (`null`: not
 * missed). The deadline lies the day before delivery, so it is never read as today's.
 * @param nowMs the clock, ms since the epoch (which days are today, yesterday, tomorrow)
 */
export function lateFirstText(day: DayOverview, nowMs: number): string | null {
  const at = lateFirstVersion(day);
  if (!at || !day.tso_deadline) return null;
  const when = (iso: string) =>
    `${formatBerlinHm(iso)} Berlin ${dayWord(berlinDate(Date.parse(iso)), nowMs)}`;
  return `TSO deadline missed — due ${when(day.tso_deadline)}, first version sent ${when(at)}`;
}
