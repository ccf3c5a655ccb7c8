/**
 * What needs the operator (docs/console_attention.md): from the overview of the delivery days
 * (`GET /v1/console/delivery-days`, today and tomorrow included also without state), the
 * orchestrator's state and pass health and the clock, a list of items worst first — TSO
 * rejections and anomalies with the TSO's reason, failing steps, a missed deadline, schedules
 * outdated by newer input, missing forecasts — and "all schedules for tomorrow confirmed" only
 * when that is the truth. Pure: no storage, no HTTP; messages are sentences in Berlin time.
 * @module
 */
import type { AttentionItem, AttentionLevel } from "../wire/attention.ts";
import type { DayOverview, StepFailure } from "../wire/delivery_days.ts";
import {
  berlinDate,
  dayDeadline,
  dayName,
  nothingSentText,
  relativeDay,
  scheduleOutdated,
  tsoProblems,
  tsoSummary,
  weekdayDate,
} from "./day_texts.ts";
import { formatBerlinHm } from "./format.ts";
import { areaName, lateFirstText, schedulesOpen } from "./intraday_texts.ts";
import { lockedDeviationItem, statusRequestItems } from "./attention_areas.ts";
import { goodNews, missingForecastItems } from "./attention_groups.ts";
import type { RejectedAnswer } from "../fahrplan/rejected_answers.ts";
import type { ForecastModelsSummary } from "../pipeline/forecast_models.ts";
import { forecastIssueItems } from "./attention_forecasts.ts";

export type { AttentionItem } from "../wire/attention.ts";

/** What the list is computed from. */
export interface AttentionInput {
  /** Overview entries (any order); days before today (Berlin) are left out. */
  days: readonly DayOverview[];
  /** The orchestrator's state and how many passes in a row failed. */
  orchestrator: { state: "running" | "stopped"; failed_passes_in_a_row: number };
  /** The clock, ms since the epoch. */
  nowMs: number;
  /** Answer files moved to `rejected/` that wait for the operator (`lib/fahrplan/rejected_answers.ts`). */
  rejected?: readonly RejectedAnswer[];
  /** The last refresh of the learned forecasts (`lib/pipeline/forecast_models.ts`). */
  learned?: ForecastModelsSummary | null;
  /** Clearing lists that wait for the operator, as items (`./attention_clearing.ts`). */
  clearing?: readonly AttentionItem[];
}

/** Passes in a row that must fail before the orchestrator itself is an error item. */
const FAILED_PASSES = 3;

/** Errors, then warnings, then the one line of good news, then information. */
const RANK: Record<AttentionLevel, number> = { error: 0, warn: 1, ok: 2, info: 3 };

const sentence = (s: string): string => s[0].toUpperCase() + s.slice(1);

/**
 * The items: errors, then warnings, then one line of good news (today and tomorrow confirmed),
 * then information; within a level by day (earliest first). Repeated facts are one item: missing
 * forecasts of consecutive days, the locked deviation of a day's areas, status requests of a day's
 * areas asked together (`attention_areas.ts`).
 * @returns `[]` when nothing is worth saying (no day from today on has any state or deadline)
 */
export function attention(input: AttentionInput): AttentionItem[] {
  const { nowMs } = input;
  const today = berlinDate(nowMs);
  const out: AttentionItem[] = [];
  const o = input.orchestrator;
  if (o.failed_passes_in_a_row >= FAILED_PASSES) {
    out.push({
      code: "orchestrator_failing",
      level: "error",
      delivery_day: null,
      message: `The last ${o.failed_passes_in_a_row} orchestrator passes failed.`,
    });
  }
  if (o.state === "stopped") {
    out.push({
      code: "orchestrator_stopped",
      level: "warn",
      delivery_day: null,
      message: "The orchestrator is stopped: nothing is aggregated, published or sent on schedule.",
    });
  }
  const days = [...input.days].filter((d) => d.delivery_day >= today)
    .sort((a, b) => a.delivery_day.localeCompare(b.delivery_day));
  for (const r of input.rejected ?? []) out.push(rejectedItem(r, nowMs));
  out.push(...input.clearing ?? []);
  for (const d of days) out.push(...dayItems(d, nowMs));
  out.push(...missingForecastItems(days, nowMs, missingForecastsText));
  if (input.learned && input.learned.next_day >= today) {
    out.push(...forecastIssueItems(input.learned, nowMs));
  }
  // An answer about a day that could not be read may say anything (a rejection too): that day is
  // not "confirmed" until the file is seen or a later answer for it arrives.
  const unread = new Set((input.rejected ?? []).map((r) => r.delivery_day));
  const good = goodNews(days.filter((d) => !unread.has(d.delivery_day)), nowMs);
  if (good) out.push(good);
  return out.map((item, i) => ({ item, i }))
    .sort((a, b) => RANK[a.item.level] - RANK[b.item.level] || a.i - b.i)
    .map((x) => x.item);
}

/**
 * A rejected answer file: what it was about, where, when, why, and what to do (docs/console.md,
 * "Attention"): "The answer file … about tomorrow (Sun 29 Nov) in the inbox /data/inbox was not
 * imported at 19:32 Berlin: …; moved to rejected/. Ask the TSO to resend its answer, or send a
 * status request from tomorrow's schedules; then press Seen."
 */
function rejectedItem(r: RejectedAnswer, nowMs: number): AttentionItem {
  const area = r.control_area ? ` in ${areaName(r.control_area)}` : "";
  const about = r.delivery_day ? ` about ${dayName(r.delivery_day, nowMs)}${area}` : "";
  const tso = r.control_area ? `the TSO of ${areaName(r.control_area)}` : "the TSO";
  const todo = r.delivery_day
    ? `Ask ${tso} to resend its answer, or send a status request from ${
      relativeDay(r.delivery_day, nowMs) ?? weekdayDate(r.delivery_day)
    }'s schedules; then press Seen.`
    : "Ask the TSO that sent it to resend its answer; then press Seen.";
  return {
    code: "rejected_answer",
    level: "warn",
    delivery_day: r.delivery_day,
    ...(r.control_area ? { control_area: r.control_area } : {}),
    file: r.file,
    message: `The answer file ${r.file}${about} in ${r.where} was not imported at ${
      formatBerlinHm(r.at)
    } Berlin: ${r.reason.replace(/[.\s]+$/, "")}; moved to rejected/. ${todo}`,
  };
}

/** The items of one day, in the order the summary shows them within a level. */
function dayItems(d: DayOverview, nowMs: number): AttentionItem[] {
  const day = d.delivery_day;
  const name = dayName(day, nowMs);
  const items: AttentionItem[] = [];
  const add = (i: Omit<AttentionItem, "delivery_day">) => items.push({ ...i, delivery_day: day });
  const problems = tsoProblems(d);
  for (const s of problems) {
    const anomaly = s.tso_status === "anomaly";
    add({
      code: anomaly ? "tso_anomaly" : "tso_rejected",
      level: "error",
      control_area: s.control_area,
      message: `${sentence(name)}: the TSO ${
        anomaly ? "reported an anomaly in" : "rejected"
      } the schedule for ${s.control_area} (schedule v${s.version}): ${
        s.reason_text ?? s.reason_code ?? "no reason given"
      }.`,
    });
  }
  for (const [step, f] of Object.entries(d.failures ?? {}) as [string, StepFailure | null][]) {
    if (!f) continue;
    add({
      code: "step_failing",
      level: "error",
      message: `${sentence(name)}: the ${step} step failed at ${
        formatBerlinHm(f.at)
      } Berlin (${f.attempts} attempt${f.attempts === 1 ? "" : "s"}): ${f.message}`,
    });
  }
  const sub = d.steps.submitted;
  const deadline = dayDeadline(d);
  const passed = Date.parse(deadline.at) <= nowMs;
  const open = schedulesOpen(d, nowMs);
  if (!sub && relativeDay(day, nowMs) === "tomorrow") {
    add({
      code: passed ? "deadline_missed" : "not_sent_yet",
      level: passed ? "error" : "info",
      message: `${sentence(name)}: ${nothingSentText(deadline, nowMs)}.`,
    });
  }
  const late = lateFirstText(d, nowMs);
  if (late) {
    // Stays for the day: the schedule went out, but the day-ahead deadline was missed.
    add({ code: "deadline_missed", level: "warn", message: `${sentence(name)}: ${late}.` });
  }
  if (sub && scheduleOutdated(d)) {
    const reason = sub.stale_reason ? ` — ${sub.stale_reason}` : "";
    add({
      code: "schedule_outdated",
      level: "warn",
      message: `${sentence(name)}: new input after the schedule was sent${reason}. The TSOs have ` +
        `aggregate v${sub.version}, the current one is v${d.input_version}${
          open ? ", not sent yet" : "; no quarter-hour is open any more, so it is not sent"
        }.`,
    });
  }
  const locked = lockedDeviationItem(d, nowMs);
  if (locked) add(locked);
  for (const i of statusRequestItems(d, nowMs)) add(i);
  const summary = tsoSummary(d);
  if (summary && !problems.length && !scheduleOutdated(d)) {
    const waiting = (d.schedules ?? []).filter((s) => s.tso_status !== "confirmed");
    if (waiting.length) {
      add({
        code: "awaiting_answer",
        level: "info",
        message: `${sentence(name)}: ${summary.text} (${
          waiting.map((s) => `${s.control_area} ${s.tso_status}`).join(", ")
        }).`,
      });
    }
  }
  return items;
}

/** Percent with at most one decimal (`0.0512` → `5.1`). */
const percent = (share: number) => Math.round(share * 1000) / 10;

/**
 * The sentence of a `missing_forecasts` warning (docs/pipeline.md, "Missing forecasts by
 * energy"): the locations by count, their share of the day's expected energy, and how many of
 * them have an energy nobody knows.
 */
export function missingForecastsText(w: DayOverview["warnings"][number]): string {
  const n = w.market_locations;
  const head = `${n} market location${n === 1 ? "" : "s"} (${percent(w.share)} % of the day's, ` +
    `by count) ${n === 1 ? "has" : "have"} no forecast in the latest aggregate`;
  // An aggregate from before energy was counted knows nothing of it.
  if (w.expected_mwh === null) {
    return `${head}; energy share unknown (aggregated before it was counted).`;
  }
  const u = w.energy_unknown_locations;
  const without = (k: number) => `${k} location${k === 1 ? "" : "s"} without load profile`;
  if (w.energy_share === null) {
    return `${head}; energy share unknown for ${
      u > 0 ? without(u) : "the day: no expected energy known"
    }.`;
  }
  const energy = `${percent(w.energy_share)} % of the day's expected energy (${w.missing_mwh} ` +
    `of ${w.expected_mwh} MWh)`;
  return u === 0
    ? `${head}; they carry ${energy}.`
    : `${head}; they carry at least ${energy}; energy unknown for ${without(u)}.`;
}
