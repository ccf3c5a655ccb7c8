/**
 * Metered quarter-hour series, whatever format they came in (MSCONS, CSV, JSON; docs/settlement.md,
 * "Actuals"): energy in kWh per UTC quarter-hour, contiguous from `start`. Also the quarter-hour
 * arithmetic they share: quarter-hours are aligned in UTC (every 15 minutes from the epoch, which
 * the German local quarter-hours are too, CET and CEST being whole hours from UTC).
 * @module
 */

/** 15 minutes in ms. */
export const QH_MS = 900_000;

/** What a series belongs to. */
export type SeriesOwner =
  | { kind: "market_location"; malo_id: string }
  | { kind: "balancing_group_sum"; balancing_group: string; balancing_area: string };

/** One metered series. */
export interface MeteredSeries {
  owner: SeriesOwner;
  /** UTC ms of the first quarter-hour's start (a multiple of {@link QH_MS}). */
  start: number;
  /** kWh per quarter-hour, consumption positive (as metered; MSCONS carries no sign). */
  kwh: number[];
  /** Where it came from, for sentences: e.g. `message 1 (UNH+1, BGM MSI5422), segment 11 (LOC)`. */
  where: string;
}

/** True when `ms` is the start of a UTC quarter-hour. */
export const onQuarterHour = (ms: number): boolean => ms % QH_MS === 0;

/** ISO-8601 UTC text of `ms` without seconds, e.g. `2027-03-28T01:00Z`. */
export const isoMinute = (ms: number): string => new Date(ms).toISOString().slice(0, 16) + "Z";

/** A sentence naming the owner, e.g. `market location 51481308448`. */
export function ownerText(o: SeriesOwner): string {
  return o.kind === "market_location"
    ? `market location ${o.malo_id}`
    : `balancing group ${o.balancing_group} in balancing area ${o.balancing_area}`;
}
