/**
 * Cuts UTC quarter-hour series into delivery days (local days in Europe/Berlin, 92/96/100
 * quarter-hours; docs/pipeline.md, "Delivery day"): each value lands at its index in its day. Pure.
 * @module
 */
import { type DeliveryDay, deliveryDay, localDayOf } from "../domain/delivery_day.ts";
import { QH_MS } from "./series.ts";

/** Values of one day at their quarter-hour indexes (`undefined` = not given). */
export interface DayPart {
  day: string;
  /** Sparse: index → value. */
  values: Map<number, number>;
}

/**
 * The values of a contiguous series (`values[i]` for the quarter-hour `start + i × 15 min`) per
 * local day.
 */
export function splitByDay(start: number, values: readonly number[]): DayPart[] {
  const out: DayPart[] = [];
  let cur: DeliveryDay | undefined;
  let part: DayPart | undefined;
  for (let i = 0; i < values.length; i++) {
    const ms = start + i * QH_MS;
    if (!cur || ms >= cur.end.epochMilliseconds) {
      cur = deliveryDay(localDayOf(ms));
      part = { day: cur.day, values: new Map() };
      out.push(part);
    }
    part!.values.set((ms - cur.start.epochMilliseconds) / QH_MS, values[i]);
  }
  return out;
}
