/**
 * Metered quarter-hour series, whatever format they came in (MSCONS, CSV, JSON; docs/settlement.md,
 * "Actuals"): energy in kWh per UTC quarter-hour, contiguous from `start`. Also the quarter-hour
 * arithmetic they share: quarter-hours are aligned in UTC (every 15 minutes from the epoch, which
 * the German local quarter-hours are too, CET and CEST being whole hours from UTC).
 * @module
 */

/** 15 minutes in ms. */
export const QH_MS = 900_000;

/**
 * What a series belongs to: a market location (MSCONS 13025 `LOC+172+<MaLo-ID>`, CSV, JSON), a
 * balancing-group sum named by balancing group and balancing area (`LOC+237`, older samples), or
 * a balancing-group sum named by its MaBiS metering point (MSCONS 13003
 * `LOC+172+<Zählpunktbezeichnung>`; docs/actuals.md, "Balancing-group sums").
 */
export type SeriesOwner =
  | { kind: "market_location"; malo_id: string }
  | { kind: "balancing_group_sum"; balancing_group: string; balancing_area: string }
  | { kind: "metering_point_sum"; metering_point: string };

/** Method and reason of a substitute value (MSCONS `STS+Z32` and `STS+Z40`), codes. */
export interface SubstituteNote {
  /** `STS+Z32` method code, e.g. `Z92` interpolation; `null` when not given. */
  method: string | null;
  /** `STS+Z40` reason code, e.g. `Z75` communication failure; `null` when not given. */
  reason: string | null;
}

/** One metered series. */
export interface MeteredSeries {
  owner: SeriesOwner;
  /** UTC ms of the first quarter-hour's start (a multiple of {@link QH_MS}). */
  start: number;
  /**
   * kWh per quarter-hour: a market location's as metered (MSCONS carries no sign; the direction
   * of its master data signs it in the settlement), a sum's consumption positive (feed-in, OBIS
   * `1-1:2.29.0`, negative). `NaN` where the sender reported the value missing (`QTY+Z30`).
   */
  kwh: number[];
  /**
   * Kind of each value (`QUALITY` of `./mscons_codes.ts`: true, substitute, provisional,
   * missing), in the order of `kwh`; absent when every value is a true value.
   */
  quality?: Uint8Array;
  /** Method and reason of each substitute value, by index into `kwh`. */
  substitutes?: Record<number, SubstituteNote>;
  /**
   * Version of a monthly settlement series (MSCONS `BGM+BK`, `DTM+293`), ISO-8601 UTC: a newer
   * version replaces an older one, never the reverse. Absent for every other series.
   */
  version?: string;
  /** The sender's market partner id (MSCONS `NAD+MS`), e.g. the DSO of a balancing-group sum. */
  sender?: string;
  /** Where it came from, for sentences: e.g. `message 1 (UNH+1, BGM MSI5422), segment 11 (LOC)`. */
  where: string;
}

/** True when `ms` is the start of a UTC quarter-hour. */
export const onQuarterHour = (ms: number): boolean => ms % QH_MS === 0;

/** ISO-8601 UTC text of `ms` without seconds, e.g. `2027-03-28T01:00Z`. */
export const isoMinute = (ms: number): string => new Date(ms).toISOString().slice(0, 16) + "Z";

/** A sentence naming the owner, e.g. `market location 51481308448`. */
export function ownerText(o: SeriesOwner): string {
  if (o.kind === "market_location") return `market location ${o.malo_id}`;
  if (o.kind === "metering_point_sum") return `MaBiS metering point ${o.metering_point}`;
  return `balancing group ${o.balancing_group} in balancing area ${o.balancing_area}`;
}
