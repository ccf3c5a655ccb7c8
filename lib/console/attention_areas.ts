/**
 * The attention items of one day that speak of several control areas at once (docs/console.md,
 * "Attention", "Repeated facts are grouped"): the energy locked in the frozen quarter-hours of
 * today (`locked_deviation`) is one item naming every area with its own amount ("Today (Tue 24
 * Nov): energy that can no longer be scheduled away: 4.2 MWh in Amprion, 1.1 MWh in TenneT TSO;
 * …"), and unanswered status requests of the same version asked at the same minute
 * (`status_requested`) are one item naming the areas. One area keeps the single sentence with its
 * EIC. Areas in the order of the overview's `schedules` (the order of the console's schedule list).
 * Pure; messages in Berlin time.
 * @module
 */
import type { AttentionItem } from "../wire/attention.ts";
import type { DayOverview } from "../wire/delivery_days.ts";
import { dayName, relativeDay } from "./day_texts.ts";
import { energy, NBSP } from "./format.ts";
import {
  areaName,
  LOCKED_DEVIATION_MIN_MWH,
  type ScheduleEntry,
  statusRequestText,
} from "./intraday_texts.ts";

/** An item of one day before its day is set (as `dayItems` of `attention.ts` adds them). */
export type DayItem = Omit<AttentionItem, "delivery_day">;

const sentence = (s: string): string => s[0].toUpperCase() + s.slice(1);

/** The area fields of an item about `list`: `control_area` for one, `control_areas` for more. */
function areasOf(list: readonly ScheduleEntry[]): Pick<DayItem, "control_area" | "control_areas"> {
  return list.length === 1
    ? { control_area: list[0].control_area }
    : { control_areas: list.map((s) => s.control_area) };
}

/** "A", "A and B", "A, B and C". */
function andList(names: readonly string[]): string {
  return names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/**
 * The `locked_deviation` item of today (warn): the areas whose frozen quarter-hours deviate by at
 * least {@link LOCKED_DEVIATION_MIN_MWH} MWh from the schedule their TSO has, each with its own
 * amount (MWh, one decimal, as the schedule list says it). `null` on other days or when no area
 * reaches the threshold.
 * @param d the day as `GET /v1/console/delivery-days` answers it
 * @param nowMs the clock, ms since the epoch (which day is today, Berlin)
 */
export function lockedDeviationItem(d: DayOverview, nowMs: number): DayItem | null {
  if (relativeDay(d.delivery_day, nowMs) !== "today") return null;
  const list = (d.schedules ?? [])
    .filter((s) => (s.locked_deviation_mwh ?? 0) >= LOCKED_DEVIATION_MIN_MWH);
  if (!list.length) return null;
  const name = sentence(dayName(d.delivery_day, nowMs));
  // The attention list is English, plain text for scripts too (docs/console.md, "Numbers").
  const mwh = (s: ScheduleEntry) => energy(s.locked_deviation_mwh ?? 0, "en").replace(NBSP, " ");
  const message = list.length === 1
    ? `${name}: ${mwh(list[0])} can no longer be scheduled away in ${
      areaName(list[0].control_area)
    } (${list[0].control_area}): the frozen quarter-hours deviate from the schedule the TSO has.`
    : `${name}: energy that can no longer be scheduled away: ${
      list.map((s) => `${mwh(s)} in ${areaName(s.control_area)}`).join(", ")
    }; the frozen quarter-hours deviate from the schedules the TSOs have.`;
  return { code: "locked_deviation", level: "warn", ...areasOf(list), message };
}

/**
 * The `status_requested` items of a day (warn): one per version and request time ("status
 * requested 19:02, no answer yet") whose TSOs have not answered, naming every such area; the
 * service asks all overdue areas in the same tick, so four areas are one item, not four.
 * @param d the day as `GET /v1/console/delivery-days` answers it
 * @param nowMs the clock, ms since the epoch (the day's name)
 */
export function statusRequestItems(d: DayOverview, nowMs: number): DayItem[] {
  const groups = new Map<string, ScheduleEntry[]>();
  for (const s of d.schedules ?? []) {
    if (!s.status_request || s.status_request.answered) continue;
    const key = `${s.version} ${statusRequestText(s)}`;
    groups.set(key, [...groups.get(key) ?? [], s]);
  }
  const name = sentence(dayName(d.delivery_day, nowMs));
  return [...groups.values()].map((list) => {
    const s = list[0];
    const who = list.length === 1
      ? `${areaName(s.control_area)} (${s.control_area}) has`
      : `${andList(list.map((x) => areaName(x.control_area)))} have`;
    return {
      code: "status_requested",
      level: "warn",
      ...areasOf(list),
      message: `${name}: ${who} not answered schedule v${s.version}; ${statusRequestText(s)}.`,
    };
  });
}
