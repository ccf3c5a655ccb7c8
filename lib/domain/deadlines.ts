/**
 * The deadlines of a delivery day, in one place (docs/intraday.md): gate closure of the market
 * platform's day-ahead submission (SDAC, 12:00 the day before), the TSO deadline of the day-ahead
 * schedule (StromNZV § 5: 14:30 the day before), the lead time of every later schedule version
 * (StromNZV § 5: at least one quarter-hour) and the end of the day for forecasts (until its last
 * quarter-hour has started). Every function takes a parsed {@link DeliveryDay}, so a caller parses
 * the day string once. Local times are Europe/Berlin `HH:MM` on the day before delivery; every
 * instant is computed in UTC through `Temporal` (no offset written by hand), so the clock-change
 * days (92 and 100 quarter-hours) need no special case.
 *
 * @example
 * const d = deliveryDay("2026-10-25");
 * tsoDeadline(d, "14:30").toString(); // "2026-10-24T12:30:00Z"
 * frozenCount(d, Date.parse("2026-10-25T01:52:00Z"), 15); // 12: 00:00–02:45 CEST frozen
 * @module
 */
import { type DeliveryDay, MARKET_TIME_ZONE } from "./delivery_day.ts";
import { GateClosed } from "./errors.ts";

/**
 * The phase a schedule version is sent in: before the TSO deadline, after it until the day's last
 * open quarter-hour, or after delivery as a post-delivery correction (docs/post-delivery.md).
 */
export type SchedulePhase = "day_ahead" | "intraday" | "post_delivery";

/** `localTime` (`HH:MM`, Europe/Berlin) on the local day before `d`, as a UTC instant. */
export function dayBefore(d: DeliveryDay, localTime: string): Temporal.Instant {
  return Temporal.PlainDate.from(d.day).subtract({ days: 1 })
    .toZonedDateTime({ timeZone: MARKET_TIME_ZONE, plainTime: Temporal.PlainTime.from(localTime) })
    .toInstant();
}

/** Gate closure of the market platform's submission (docs/pipeline.md, "Gate closure"). */
export function gateClosure(d: DeliveryDay, gateClosureLocalTime: string): Temporal.Instant {
  return dayBefore(d, gateClosureLocalTime);
}

/** The TSO deadline of the day-ahead schedule (StromNZV § 5; default 14:30 the day before). */
export function tsoDeadline(d: DeliveryDay, tsoDeadlineLocalTime: string): Temporal.Instant {
  return dayBefore(d, tsoDeadlineLocalTime);
}

/** Start of the day's last quarter-hour (UTC): forecasts are accepted until it has started. */
export function lastQuarterHourStart(d: DeliveryDay): Temporal.Instant {
  return d.quarterHours[d.quarterHours.length - 1];
}

/** `day_ahead` before the TSO deadline, `intraday` from it on. */
export function schedulePhase(
  d: DeliveryDay,
  nowMs: number,
  tsoDeadlineLocalTime: string,
): "day_ahead" | "intraday" {
  return nowMs < tsoDeadline(d, tsoDeadlineLocalTime).epochMilliseconds ? "day_ahead" : "intraday";
}

/**
 * How many of the day's quarter-hours are frozen for a version sent at `sentAtMs`: those that
 * start before `sentAtMs + leadMinutes` (StromNZV § 5, a lead time of at least one quarter-hour).
 * 0 before the day (minus the lead) begins, the day's count when none is open any more.
 */
export function frozenCount(d: DeliveryDay, sentAtMs: number, leadMinutes: number): number {
  const limit = sentAtMs + leadMinutes * 60_000;
  const qh = d.quarterHours;
  let n = 0;
  while (n < qh.length && qh[n].epochMilliseconds < limit) n++;
  return n;
}

/**
 * The first open quarter-hour's start for a version sent at `sentAtMs` (UTC); the day's end when
 * every quarter-hour is frozen.
 */
export function frozenBefore(d: DeliveryDay, sentAtMs: number, leadMinutes: number): string {
  const n = frozenCount(d, sentAtMs, leadMinutes);
  return (n < d.quarterHours.length ? d.quarterHours[n] : d.end).toString();
}

/** `HH:MM` Europe/Berlin of an instant, with the offset where the hour is ambiguous. */
function berlin(i: Temporal.Instant): string {
  const z = i.toZonedDateTimeISO(MARKET_TIME_ZONE);
  return `${z.toPlainTime().toString().slice(0, 5)} Berlin (${z.offset})`;
}

/**
 * Refuses the market platform's submission of a day whose gate closure has passed.
 * @param what what did not happen, e.g. "nothing was submitted"
 * @throws {GateClosed} naming the gate-closure instant
 */
export function assertBeforeGateClosure(
  d: DeliveryDay,
  nowMs: number,
  gateClosureLocalTime: string,
  what: string,
): void {
  const gc = gateClosure(d, gateClosureLocalTime);
  if (gc.epochMilliseconds <= nowMs) {
    throw new GateClosed(
      `Gate closure for delivery day ${d.day} was ${gc.toString()} (${gateClosureLocalTime} Europe/Berlin on the day before); ${what}.`,
    );
  }
}

/**
 * Refuses a customer forecast for a day whose last quarter-hour has started (docs/intraday.md,
 * "Forecasts until the day ends").
 * @throws {GateClosed} naming the last quarter-hour
 */
export function assertForecastOpen(d: DeliveryDay, nowMs: number, what: string): void {
  const last = lastQuarterHourStart(d);
  if (last.epochMilliseconds <= nowMs) {
    throw new GateClosed(
      `Delivery day ${d.day} is over for forecasts: its last quarter-hour started at ${last.toString()} (${
        berlin(last)
      }); ${what}.`,
    );
  }
}

/**
 * Refuses a schedule version of a day in which no quarter-hour is open any more at `nowMs`: every
 * quarter-hour starts before `nowMs + leadMinutes` (docs/intraday.md, "Frozen quarter-hours").
 * @throws {GateClosed} naming the last quarter-hour and the lead time
 */
export function assertScheduleOpen(
  d: DeliveryDay,
  nowMs: number,
  leadMinutes: number,
  what: string,
): void {
  if (frozenCount(d, nowMs, leadMinutes) < d.quarterHours.length) return;
  const last = lastQuarterHourStart(d);
  throw new GateClosed(
    `No quarter-hour of delivery day ${d.day} is open any more: the last one starts at ${last.toString()} (${
      berlin(last)
    }), within the lead time of ${leadMinutes} minutes; ${what}.`,
  );
}
