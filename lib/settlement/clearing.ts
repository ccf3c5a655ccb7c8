/**
 * The clearing list of a month (docs/settlement.md, "Checking the settlement data"): StromNZV § 4
 * (4) — the BRP checks the data it receives in time and objects without delay to the network
 * operator that sent it. Per control area and quarter-hour of the month's delivered days: the
 * balancing-group sum the DSOs sent (Σ of the area's sums: its MaBiS metering points and balancing
 * areas) against our own market-location sum; every quarter-hour whose difference is over the
 * tolerance (`clearing_tolerance_kwh`) is listed with both in MWh. The operator marks an area's list
 * `checked` or `objected` (`./clearing_marks.ts`); a mark made on a list that has changed since (new
 * sums, corrected actuals) no longer holds, and the list is open again.
 *
 * Our sum is the area's: the master data does not say which DSO's grid a market location is in, so
 * where an area's sum comes from several network operators, their total is compared with ours and
 * every source is named.
 * @module
 */
import type { EffectiveConfig } from "../config/fields.ts";
import { balancingAreasOf } from "../config/balancing_areas.ts";
import { meteringPointsOf } from "../config/mabis_points.ts";
import { addDays, deliveryDay, parseDay } from "../domain/delivery_day.ts";
import { balancingGroupSumsOfDay, type StoredActuals } from "./actuals_store.ts";
import { type ClearingMark, marksOfMonth } from "./clearing_marks.ts";
import { readSettlementInputs } from "./day_inputs.ts";

/** One quarter-hour over the tolerance. */
export interface ClearingQuarterHour {
  delivery_day: string;
  /** ISO-8601 UTC start. */
  start: string;
  /** Position in the day's quarter-hours, 0-based. */
  index: number;
  /** The DSOs' balancing-group sum, MWh in the quarter-hour (consumption +). */
  sum_mwh: number;
  /** Our market-location sum, MWh. */
  ours_mwh: number;
  /** sum − ours, MWh. */
  difference_mwh: number;
}

/** Where an area's sum comes from. */
export interface ClearingSource {
  /** The network operator's market partner id (MSCONS `NAD+MS`); `null` when not sent. */
  network_operator: string | null;
  /** The balancing area of a `LOC+237` sum; `null` for a metering point's. */
  balancing_area: string | null;
  /** The MaBiS metering point of a 13003 sum; `null` for a `LOC+237` sum. */
  metering_point: string | null;
}

/** The clearing list of one control area and month. */
export interface ClearingArea {
  control_area: string;
  sources: ClearingSource[];
  /** Days of the month with a sum and our sum to compare. */
  days_compared: number;
  /** Quarter-hours compared (both known). */
  quarter_hours_compared: number;
  /** The quarter-hours over the tolerance, by day and time. */
  quarter_hours: ClearingQuarterHour[];
  /** Σ difference of the listed quarter-hours, MWh. */
  difference_mwh: number;
  /** `open` until marked; a mark on a list that changed since does not hold. */
  status: "open" | "checked" | "objected";
  /** The mark, also one that no longer holds (`holds: false`). */
  mark: (ClearingMark & { holds: boolean }) | null;
  /** What the mark was made on: changes when the list changes. */
  fingerprint: string;
}

const r6 = (x: number) => Math.round(x * 1e6) / 1e6;

/**
 * The clearing list of the Europe/Berlin month `YYYY-MM`: every control area with a balancing-group
 * sum on a delivered day of the month.
 * @throws {import("../domain/delivery_day.ts").InvalidDeliveryDayError} for a malformed month
 */
export async function clearingOfMonth(
  kv: Deno.Kv,
  cfg: EffectiveConfig,
  month: string,
  nowMs: number,
): Promise<{ tolerance_kwh: number; areas: ClearingArea[] }> {
  const tolerance = (cfg.clearing_tolerance_kwh ?? 1) / 1000;
  const first = parseDay(`${month}-01`).toString();
  const per = new Map<string, ClearingArea>();
  for (let day = first; day.startsWith(month); day = addDays(day, 1)) {
    const dd = deliveryDay(day);
    if (dd.end.epochMilliseconds > nowMs) break;
    const sums = await balancingGroupSumsOfDay(kv, day);
    if (sums.length === 0) continue;
    const inputs = await readSettlementInputs(kv, cfg, day);
    for (const area of inputs.areas) {
      const mine = sumsOf(cfg, area.control_area, sums);
      if (mine.length === 0) continue;
      const a = per.get(area.control_area) ?? newArea(area.control_area);
      per.set(area.control_area, a);
      for (const s of mine) addSource(a.sources, s);
      a.days_compared++;
      for (let i = 0; i < dd.quarterHours.length; i++) {
        const ours = area.market_location_mw[i];
        let sum: number | null = 0;
        for (const s of mine) sum = s.kwh[i] === null || sum === null ? null : sum + s.kwh[i]!;
        if (ours === null || sum === null) continue;
        a.quarter_hours_compared++;
        const sumMwh = sum / 1000, oursMwh = ours * 0.25;
        if (Math.abs(sumMwh - oursMwh) <= tolerance) continue;
        a.quarter_hours.push({
          delivery_day: day,
          start: dd.quarterHours[i].toString(),
          index: i,
          sum_mwh: r6(sumMwh),
          ours_mwh: r6(oursMwh),
          difference_mwh: r6(sumMwh - oursMwh),
        });
      }
    }
  }
  const marks = await marksOfMonth(kv, month);
  const areas = [...per.values()].map((a) => {
    a.difference_mwh = r6(a.quarter_hours.reduce((x, q) => x + q.difference_mwh, 0));
    a.fingerprint = fingerprintOf(a);
    const mark = marks.get(a.control_area) ?? null;
    const holds = mark !== null && mark.fingerprint === a.fingerprint;
    a.mark = mark && { ...mark, holds };
    a.status = holds ? mark!.status : "open";
    return a;
  });
  return { tolerance_kwh: tolerance * 1000, areas };
}

/** The sums that make up an area's: of its balancing areas and of its metering points. */
function sumsOf(cfg: EffectiveConfig, area: string, sums: readonly StoredActuals[]) {
  const bas = new Set(balancingAreasOf(cfg.balancing_areas ?? [], area));
  const points = new Set(meteringPointsOf(cfg.mabis_metering_points ?? [], area));
  return sums.filter((s) =>
    s.owner.kind === "balancing_group_sum"
      ? bas.has(s.owner.balancing_area)
      : s.owner.kind === "metering_point_sum" && points.has(s.owner.metering_point)
  );
}

function newArea(control_area: string): ClearingArea {
  return {
    control_area,
    sources: [],
    days_compared: 0,
    quarter_hours_compared: 0,
    quarter_hours: [],
    difference_mwh: 0,
    status: "open",
    mark: null,
    fingerprint: "",
  };
}

function addSource(sources: ClearingSource[], s: StoredActuals): void {
  const src: ClearingSource = {
    network_operator: s.sender ?? null,
    balancing_area: s.owner.kind === "balancing_group_sum" ? s.owner.balancing_area : null,
    metering_point: s.owner.kind === "metering_point_sum" ? s.owner.metering_point : null,
  };
  const same = (x: ClearingSource) =>
    x.network_operator === src.network_operator && x.balancing_area === src.balancing_area &&
    x.metering_point === src.metering_point;
  if (!sources.some(same)) sources.push(src);
}

/**
 * What a mark is made on: the listed quarter-hours and their differences, hashed (FNV-1a, 32 bits,
 * with the count in front): another list — a new sum, a corrected actual — has another fingerprint.
 */
function fingerprintOf(a: ClearingArea): string {
  let h = 0x811c9dc5;
  for (const q of a.quarter_hours) {
    const t = `${q.start}=${q.difference_mwh};`;
    for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), 0x01000193) >>> 0;
  }
  return `${a.quarter_hours.length}-${h.toString(16).padStart(8, "0")}`;
}

/** The list as CSV (`delivery_day,start_utc,control_area,sum_mwh,ours_mwh,difference_mwh`). */
export function clearingCsv(areas: readonly ClearingArea[]): string {
  const rows = ["delivery_day,start_utc,control_area,sum_mwh,ours_mwh,difference_mwh,status"];
  for (const a of areas) {
    for (const q of a.quarter_hours) {
      rows.push(
        [q.delivery_day, q.start, a.control_area, q.sum_mwh, q.ours_mwh, q.difference_mwh, a.status]
          .join(","),
      );
    }
  }
  return rows.join("\r\n") + "\r\n";
}
