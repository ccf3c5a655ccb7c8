/**
 * The words of a delivery day's row and of the attention summary (docs/console.md, "Rows"): the
 * weekday and "today"/"tomorrow" in Berlin, the deadline of a day with nothing sent, and what the
 * TSOs say about the current version. Pure (the clock is a parameter) and free of `Temporal`, so
 * the server's attention list and the browser's rows use the same sentences.
 * @module
 */
import type { DayOverview } from "../wire/delivery_days.ts";
import { formatBerlinHm, formatCountdown, MARKET_ZONE } from "./format.ts";

// Made at the first use: the first `Intl.DateTimeFormat` of a process loads ICU's time-zone and
// locale data (~20-70 ms), which importing the service need not pay.
let DATE: Intl.DateTimeFormat | undefined;
const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** The Berlin calendar date (`YYYY-MM-DD`) of the instant `ms` (ms since the epoch). */
export function berlinDate(ms: number): string {
  DATE ??= new Intl.DateTimeFormat("en-CA", {
    timeZone: MARKET_ZONE,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  });
  return DATE.format(new Date(ms));
}

/** `day` (`YYYY-MM-DD`) plus `n` calendar days. */
export function addDays(day: string, n: number): string {
  const [y, m, d] = day.split("-").map(Number);
  return new Date(Date.UTC(y, m - 1, d + n)).toISOString().slice(0, 10);
}

/** `today`, `tomorrow`, `yesterday` or `null`, relative to the Berlin date of `nowMs`. */
export function relativeDay(day: string, nowMs: number): "today" | "tomorrow" | "yesterday" | null {
  const today = berlinDate(nowMs);
  if (day === today) return "today";
  if (day === addDays(today, 1)) return "tomorrow";
  if (day === addDays(today, -1)) return "yesterday";
  return null;
}

/** `Wed 25 Nov` for `2026-11-25` (a calendar date: no zone involved). */
export function weekdayDate(day: string): string {
  const [y, m, d] = day.split("-").map(Number);
  const wd = new Date(Date.UTC(y, m - 1, d)).getUTCDay();
  return `${WEEKDAYS[wd]} ${d} ${MONTHS[m - 1]}`;
}

/** A date as a word beside a time: `today`, `tomorrow`, `yesterday`, else `Fri 27 Nov`. */
export function dayWord(day: string, nowMs: number): string {
  return relativeDay(day, nowMs) ?? weekdayDate(day);
}

/** How a day is named in sentences: `tomorrow (Wed 25 Nov)` or `Fri 27 Nov`. */
export function dayName(day: string, nowMs: number): string {
  const rel = relativeDay(day, nowMs);
  return rel ? `${rel} (${weekdayDate(day)})` : weekdayDate(day);
}

/** A deadline of a day: its name in words and its instant (ISO-8601 UTC). */
export interface Deadline {
  /** e.g. `gate closure`. */
  name: string;
  at: string;
}

/**
 * The deadline by which a day's schedules must be sent: the TSO deadline of the day-ahead
 * schedule (docs/intraday.md, StromNZV § 5: 14:30 Berlin the day before), or the gate closure
 * when the overview does not carry it (an older producer of the shape).
 */
export function dayDeadline(day: DayOverview): Deadline {
  return day.tso_deadline
    ? { name: "TSO deadline", at: day.tso_deadline }
    : { name: "gate closure", at: day.gate_closure };
}

/**
 * A day with nothing sent, in words: `nothing sent — TSO deadline 14:30 Berlin in 2 h 10 min`
 * before the deadline, `missed: TSO deadline passed, nothing sent` after it.
 */
export function nothingSentText(deadline: Deadline, nowMs: number): string {
  const at = Date.parse(deadline.at);
  if (at <= nowMs) return `missed: ${deadline.name} passed, nothing sent`;
  return `nothing sent — ${deadline.name} ${formatBerlinHm(deadline.at)} Berlin ${
    formatCountdown(at, nowMs)
  }`;
}

/** What the TSOs say about a day's schedules, for the row and the summary. */
export interface TsoSummary {
  /** `error`: a rejection or anomaly; `warn`: not every area confirmed the current version. */
  tone: "ok" | "warn" | "error";
  text: string;
}

/** The schedules whose latest document the TSO rejected or reported an anomaly for. */
export function tsoProblems(day: DayOverview): DayOverview["schedules"] {
  return (day.schedules ?? []).filter((s) =>
    s.tso_status === "rejected" || s.tso_status === "anomaly"
  );
}

/**
 * True when the schedules sent are not of the day's current input: input arrived after the
 * `submitted` step (its aggregate version is behind the day's input version).
 */
export function scheduleOutdated(day: DayOverview): boolean {
  const sub = day.steps.submitted;
  return !!sub && sub.version < day.input_version;
}

const versions = (list: DayOverview["schedules"]): string => {
  const vs = [...new Set(list.map((s) => s.version))].sort((a, b) => a - b);
  return vs.length === 1 ? `v${vs[0]}` : `v${vs[0]}–v${vs[vs.length - 1]}`;
};

/**
 * The TSO summary of a row, counting the current version only (docs/console.md, "Rows"):
 * `confirmed: schedule v1 in 4 of 4 areas (aggregate v1) · aggregate v2 not sent yet` (amber),
 * `rejected in 1 of 4 areas · 3 confirmed` (red), `confirmed: schedule v2 in 4 of 4 areas
 * (aggregate v2)` (green); `null` when no document was handed to a TSO.
 */
export function tsoSummary(day: DayOverview): TsoSummary | null {
  const list = day.schedules ?? [];
  if (!list.length) return null;
  const n = list.length;
  const confirmed = list.filter((s) => s.tso_status === "confirmed").length;
  const rejected = list.filter((s) => s.tso_status === "rejected").length;
  const anomaly = list.filter((s) => s.tso_status === "anomaly").length;
  const sub = day.steps.submitted;
  const agg = sub ? ` (aggregate v${sub.version})` : "";
  if (rejected || anomaly) {
    const parts = [
      rejected ? `rejected in ${rejected} of ${n} areas` : "",
      anomaly ? `anomaly in ${anomaly} of ${n} areas` : "",
      `${confirmed} confirmed`,
    ].filter(Boolean);
    return { tone: "error", text: parts.join(" · ") };
  }
  if (scheduleOutdated(day)) {
    return {
      tone: "warn",
      text: `confirmed: schedule ${versions(list)} in ${confirmed} of ${n} areas${agg} · ` +
        `aggregate v${day.input_version} not sent yet`,
    };
  }
  if (confirmed === n) {
    return {
      tone: "ok",
      text: `confirmed: schedule ${versions(list)} in ${n} of ${n} areas${agg}`,
    };
  }
  return {
    tone: "warn",
    text: `confirmed: ${confirmed} of ${n} areas · schedule ${versions(list)}${agg} waiting for ${
      n - confirmed
    } TSO answer${n - confirmed === 1 ? "" : "s"}`,
  };
}

/** One TSO problem in words: `10YDE-RWENET---I: rejected by the TSO (v2): <reason>`. */
export function tsoProblemText(s: DayOverview["schedules"][number]): string {
  const what = s.tso_status === "anomaly" ? "anomaly reported by the TSO" : "rejected by the TSO";
  const why = s.reason_text ?? s.reason_code ?? "no reason given";
  return `${s.control_area}: ${what} (schedule v${s.version}): ${why}`;
}
