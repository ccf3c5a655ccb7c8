/**
 * Cuts UTC quarter-hour series into delivery days (local days in Europe/Berlin, 92/96/100
 * quarter-hours; docs/pipeline.md, "Delivery day"): each value lands at its index in its day. Pure.
 * @module
 */
import { type DeliveryDay, deliveryDay, localDayOf } from "../domain/delivery_day.ts";
import { QH_MS } from "./series.ts";

/** The day found last: the series of one message mostly start on the same day. */
let lastDay: DeliveryDay | undefined;

/** The delivery day holding the instant `ms`. */
function dayOf(ms: number): DeliveryDay {
  const d = lastDay;
  if (d && ms >= d.start.epochMilliseconds && ms < d.end.epochMilliseconds) return d;
  return lastDay = deliveryDay(localDayOf(ms));
}

/** Values of one day at their quarter-hour indexes (`undefined` = not given). */
export interface DayPart {
  day: string;
  /** Sparse: index → value. */
  values: Map<number, number>;
}

/**
 * A run of one day: `values[k]` belongs at the quarter-hour index `first + k` of `day`, and was
 * `values[offset + k]` of the series.
 */
export interface DayRun {
  day: string;
  first: number;
  offset: number;
  values: number[];
}

/**
 * The values of a contiguous series (`values[i]` for the quarter-hour `start + i × 15 min`) per
 * local day, as runs (no map per value: an interchange holds a million values).
 */
export function runsByDay(start: number, values: readonly number[]): DayRun[] {
  const out: DayRun[] = [];
  for (let i = 0; i < values.length;) {
    const ms = start + i * QH_MS;
    const d = dayOf(ms);
    const first = (ms - d.start.epochMilliseconds) / QH_MS;
    const n = Math.min(values.length - i, (d.end.epochMilliseconds - ms) / QH_MS);
    out.push({ day: d.day, first, offset: i, values: values.slice(i, i + n) });
    i += n;
  }
  return out;
}

/**
 * The values of a contiguous series (`values[i]` for the quarter-hour `start + i × 15 min`) per
 * local day.
 */
export function splitByDay(start: number, values: readonly number[]): DayPart[] {
  return runsByDay(start, values).map((r) => ({
    day: r.day,
    values: new Map(r.values.map((v, k) => [r.first + k, v])),
  }));
}

/**
 * Points of single quarter-hours (`start` UTC ms) per local day and quarter-hour index, days in
 * ascending order; a later point for the same quarter-hour wins.
 */
export function pointsByDay<P extends { start: number }>(
  points: readonly P[],
): [string, Map<number, P>][] {
  const byDay = new Map<string, Map<number, P>>();
  for (const p of points) {
    const [run] = runsByDay(p.start, [0]);
    const m = byDay.get(run.day) ?? new Map<number, P>();
    m.set(run.first, p);
    byDay.set(run.day, m);
  }
  return [...byDay].sort(([a], [b]) => a.localeCompare(b));
}
