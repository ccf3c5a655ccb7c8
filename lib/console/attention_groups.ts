/**
 * The attention items that speak of several days at once (docs/console_attention.md): missing
 * forecasts grouped over consecutive days with the same count ("20 market locations without load
 * profile have no forecast for Fri 27 Nov – Thu 3 Dec"), a warning only from when they are due
 * (`forecasts_due`, by default the TSO deadline the day before) and information before; and the
 * one line of good news for today and tomorrow. Pure; messages in Berlin time.
 * @module
 */
import type { AttentionItem } from "../wire/attention.ts";
import type { DayOverview } from "../wire/delivery_days.ts";
import {
  berlinDate,
  dayDeadline,
  dayName,
  dayWord,
  relativeDay,
  scheduleOutdated,
  tsoProblems,
  tsoSummary,
} from "./day_texts.ts";
import { formatBerlinHm } from "./format.ts";

type Warning = DayOverview["warnings"][number];

const sentence = (s: string): string => s[0].toUpperCase() + s.slice(1);

/** When a day's missing forecasts become a warning: `forecasts_due`, else its deadline. */
export function forecastsDue(d: DayOverview): string {
  return d.forecasts_due ?? dayDeadline(d).at;
}

/**
 * The missing-forecast items of `days` (sorted by day): one per run of consecutive days with the
 * same number of locations, the same number without load profile and the same level.
 * @param text the sentence of one day's warning (`missingForecastsText`)
 */
export function missingForecastItems(
  days: readonly DayOverview[],
  nowMs: number,
  text: (w: Warning) => string,
): AttentionItem[] {
  type Run = { days: DayOverview[]; w: Warning; level: "warn" | "info" };
  const runs: Run[] = [];
  for (const d of days) {
    for (const w of d.warnings ?? []) {
      const level = Date.parse(forecastsDue(d)) <= nowMs ? "warn" : "info";
      const last = runs.at(-1);
      const prev = last?.days.at(-1)?.delivery_day;
      if (
        last && prev && nextDay(prev) === d.delivery_day && last.level === level &&
        last.w.market_locations === w.market_locations &&
        last.w.energy_unknown_locations === w.energy_unknown_locations
      ) last.days.push(d);
      else runs.push({ days: [d], w, level });
    }
  }
  return runs.map((r) => {
    const first = r.days[0];
    // When, said as the operator says it: "today", "tomorrow", never "the day before" alone.
    const at = forecastsDue(first);
    const when = `${formatBerlinHm(at)} Berlin ${dayWord(berlinDate(Date.parse(at)), nowMs)}`;
    const due = r.level !== "info"
      ? ""
      : r.days.length > 1
      ? ` Due the day before each, the first ${when}.`
      : ` Due ${when}.`;
    const item: AttentionItem = {
      code: "missing_forecasts",
      level: r.level,
      delivery_day: first.delivery_day,
      message: r.days.length === 1
        ? `${sentence(dayName(first.delivery_day, nowMs))}: ${text(r.w)}${due}`
        : `${groupHead(r.w)} for ${dayName(first.delivery_day, nowMs)} – ${
          dayName(r.days.at(-1)!.delivery_day, nowMs)
        } (${r.days.length} days).${due}`,
    };
    if (r.days.length > 1) item.days = r.days.map((d) => d.delivery_day);
    return item;
  });
}

/** "20 market locations without load profile have no forecast in the latest aggregates". */
function groupHead(w: Warning): string {
  const n = w.market_locations;
  const noProfile = w.energy_unknown_locations === n ? " without load profile" : "";
  return `${n} market location${n === 1 ? "" : "s"}${noProfile} ${
    n === 1 ? "has" : "have"
  } no forecast in the latest aggregates`;
}

/** `YYYY-MM-DD` plus one calendar day. */
function nextDay(day: string): string {
  const [y, m, d] = day.split("-").map(Number);
  return new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
}

/** True when every schedule of `d` is confirmed in its current version and no step fails. */
export function allConfirmed(d: DayOverview): boolean {
  const summary = tsoSummary(d);
  return !!summary && !tsoProblems(d).length && !scheduleOutdated(d) &&
    (d.schedules ?? []).every((s) => s.tso_status === "confirmed") &&
    !Object.values(d.failures ?? {}).some(Boolean);
}

/**
 * The one line of good news: today's and tomorrow's schedules all confirmed ("All schedules for
 * today (Tue 24 Nov) and tomorrow (Wed 25 Nov) are confirmed — today: …; tomorrow: …"), or the one of them that is;
 * `null` when neither is.
 */
export function goodNews(days: readonly DayOverview[], nowMs: number): AttentionItem | null {
  const done = days.filter((d) =>
    (relativeDay(d.delivery_day, nowMs) === "today" ||
      relativeDay(d.delivery_day, nowMs) === "tomorrow") && allConfirmed(d)
  );
  if (!done.length) return null;
  const names = done.map((d) => dayName(d.delivery_day, nowMs)).join(" and ");
  const text = done.length === 1
    ? tsoSummary(done[0])!.text
    : `confirmed — ${
      done.map((d) =>
        `${relativeDay(d.delivery_day, nowMs)}: ${tsoSummary(d)!.text.replace(/^confirmed: /, "")}`
      ).join("; ")
    }`;
  const item: AttentionItem = {
    code: "all_confirmed",
    level: "ok",
    delivery_day: done[0].delivery_day,
    message: `All schedules for ${names} are ${text}.`,
  };
  if (done.length > 1) item.days = done.map((d) => d.delivery_day);
  return item;
}
