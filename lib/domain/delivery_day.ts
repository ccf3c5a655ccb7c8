/**
 * Delivery days (docs/pipeline.md, "Delivery day"): a local calendar day in Europe/Berlin, cut into quarter-hours
 * (MTU 15 min). The day has 92 quarter-hours on the spring clock change (last Sunday of March),
 * 100 on the autumn clock change (last Sunday of October) and 96 otherwise. Gate closure of the
 * day-ahead auction (SDAC) is 12:00 local time on the day before, configurable.
 *
 * All arithmetic goes through `Temporal` with the IANA zone; no offsets are written by hand.
 *
 * @example
 * const day = deliveryDay("2026-10-25");
 * day.quarterHours.length; // 100
 * day.gateClosure.toString(); // "2026-10-24T10:00:00Z"
 * @module
 */

/** The market's time zone. */
export const MARKET_TIME_ZONE = "Europe/Berlin";

/** The form of a delivery day, `YYYY-MM-DD` (a calendar date besides: {@link parseDay}). */
export const DAY_FORMAT = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A delivery day with its quarter-hours and gate closure. Immutable: `deliveryDay` returns a
 * frozen, shared (memoized) object; copy `quarterHours` before changing it.
 */
export interface DeliveryDay {
  /** Local date `YYYY-MM-DD`. */
  readonly day: string;
  /** Start of the day, 00:00 local, as a UTC instant. */
  readonly start: Temporal.Instant;
  /** Start of the next day, 00:00 local, as a UTC instant (exclusive end). */
  readonly end: Temporal.Instant;
  /** Start instant of every quarter-hour, in order: 92, 96 or 100 of them. */
  readonly quarterHours: readonly Temporal.Instant[];
  /** Gate closure: `gateClosureLocalTime` on the previous local day, as a UTC instant. */
  readonly gateClosure: Temporal.Instant;
}

/** Memo of built days, by `day|gateClosureLocalTime`; oldest entry evicted beyond the bound. */
const MAX_MEMO = 512;
const memo = new Map<string, DeliveryDay>();

/** Thrown for a string that is not a valid local date. */
export class InvalidDeliveryDayError extends Error {
  readonly code = "ERR_DELIVERY_DAY";
  constructor(input: string) {
    super(`"${input}" is not a delivery day (expected a date YYYY-MM-DD)`);
    this.name = "InvalidDeliveryDayError";
  }
}

/** Parses `YYYY-MM-DD` strictly (no overflow: 2026-02-30 is refused). */
export function parseDay(day: string): Temporal.PlainDate {
  if (!DAY_FORMAT.test(day)) throw new InvalidDeliveryDayError(day);
  try {
    return Temporal.PlainDate.from(day, { overflow: "reject" });
  } catch {
    throw new InvalidDeliveryDayError(day);
  }
}

/**
 * Builds a delivery day. Memoized per (`day`, `gateClosureLocalTime`) in a bounded map (512
 * entries, oldest evicted): repeated calls return the same frozen object, so validating a
 * batch of forecasts for one day builds its 96 instants once. Invalid input is never cached
 * and throws on every call.
 * @param day local date `YYYY-MM-DD`
 * @param gateClosureLocalTime `HH:MM` local time on the day before (default `12:00`, SDAC)
 * @returns the day's UTC interval `[start, end)`, its 92/96/100 quarter-hour starts (UTC
 *   instants, 15 minutes apart) and its gate closure instant; frozen (read-only, shared)
 * @throws {InvalidDeliveryDayError} for a malformed or impossible date
 * @throws {RangeError} for a `gateClosureLocalTime` that is not a time of day
 */
export function deliveryDay(day: string, gateClosureLocalTime = "12:00"): DeliveryDay {
  const key = `${day}|${gateClosureLocalTime}`;
  let built = memo.get(key);
  if (!built) {
    built = buildDeliveryDay(day, gateClosureLocalTime);
    if (memo.size >= MAX_MEMO) memo.delete(memo.keys().next().value!);
    memo.set(key, built);
  }
  return built;
}

function buildDeliveryDay(day: string, gateClosureLocalTime: string): DeliveryDay {
  const date = parseDay(day);
  const start = date.toZonedDateTime({ timeZone: MARKET_TIME_ZONE }).toInstant();
  const end = date.add({ days: 1 }).toZonedDateTime({ timeZone: MARKET_TIME_ZONE }).toInstant();
  // Exact (elapsed) minutes between the two local midnights: 23, 24 or 25 hours.
  const count = start.until(end).total({ unit: "minutes" }) / 15;
  const quarterHours = Array.from({ length: count }, (_, i) => start.add({ minutes: 15 * i }));
  const gateClosure = date.subtract({ days: 1 })
    .toZonedDateTime({
      timeZone: MARKET_TIME_ZONE,
      plainTime: Temporal.PlainTime.from(gateClosureLocalTime),
    })
    .toInstant();
  return Object.freeze({
    day,
    start,
    end,
    quarterHours: Object.freeze(quarterHours),
    gateClosure,
  });
}

/** Number of quarter-hours of a local day: 92, 96 or 100. */
export function quarterHourCount(day: string): number {
  return deliveryDay(day).quarterHours.length;
}

/** The local date (`YYYY-MM-DD`, Europe/Berlin) of an instant given in ms since the epoch. */
export function localDayOf(epochMs: number): string {
  return Temporal.Instant.fromEpochMilliseconds(epochMs).toZonedDateTimeISO(MARKET_TIME_ZONE)
    .toPlainDate().toString();
}

/** Adds `n` days to a local date. */
export function addDays(day: string, n: number): string {
  return parseDay(day).add({ days: n }).toString();
}

/**
 * The next delivery day whose gate closure is still ahead at `nowMs`: tomorrow before gate
 * closure, the day after from then on.
 */
export function nextOpenDay(nowMs: number, gateClosureLocalTime = "12:00"): string {
  let day = addDays(localDayOf(nowMs), 1);
  while (deliveryDay(day, gateClosureLocalTime).gateClosure.epochMilliseconds <= nowMs) {
    day = addDays(day, 1);
  }
  return day;
}
