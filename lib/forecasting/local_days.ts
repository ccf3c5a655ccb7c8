/**
 * The local-time arithmetic the learned forecasts need (docs/forecasting.md, "Days and
 * quarter-hours"): Berlin delivery days as runs of UTC quarter-hours, "the same quarter-hour of the
 * day n days before" by wall-clock time, and the instant a day's actuals count as known.
 *
 * A quarter-hour's *slot* is its wall-clock position in the day, 0 (00:00) … 95 (23:45). On the
 * 100-quarter-hour day the repeated hour's two runs share slots 8…11; on the 92-quarter-hour day
 * slots 8…11 do not occur. "The same quarter-hour n days before" maps a slot to the first
 * quarter-hour of the earlier day with that slot, or — where the earlier day skipped it — with the
 * next slot it has (the "compatible" disambiguation of RFC 9557 / Temporal). Each day's mapping is
 * computed once through `Temporal` with the IANA zone and kept (no offset written by hand).
 *
 * @example
 * const d = localDay("2020-10-25"); // 100 quarter-hours
 * d.slots[12]; // 8: the second 02:00
 * actualsKnownAt(Date.parse("2020-10-25T12:00:00Z")); // 2020-10-26T05:00:00Z (06:00 Berlin)
 * @module
 */
import { addDays, deliveryDay, localDayOf, MARKET_TIME_ZONE } from "../domain/delivery_day.ts";

/** Slots of a standard day. */
export const SLOTS_PER_DAY = 96;

/** A Berlin day as quarter-hours: its UTC start, its length and its wall-clock slots. */
export interface LocalDay {
  /** `YYYY-MM-DD`, Europe/Berlin. */
  readonly day: string;
  /** UTC ms of 00:00 Berlin. */
  readonly startMs: number;
  /** 92, 96 or 100. */
  readonly length: number;
  /** ISO weekday of the date, 1 (Monday) … 7 (Sunday). */
  readonly weekday: number;
  /** Slot (0…95) of each quarter-hour, by index. */
  readonly slots: Int16Array;
  /** Index of the quarter-hour that stands for each slot 0…95 (first occurrence; next one if skipped). */
  readonly indexOfSlot: Int16Array;
}

const MAX_MEMO = 4096;
const memo = new Map<string, LocalDay>();

/**
 * The day `YYYY-MM-DD` (Europe/Berlin) with its slots; memoized (bounded) and frozen.
 * @throws {import("../domain/delivery_day.ts").InvalidDeliveryDayError} for a malformed date
 */
export function localDay(day: string): LocalDay {
  let d = memo.get(day);
  if (!d) {
    d = buildLocalDay(day);
    if (memo.size >= MAX_MEMO) memo.delete(memo.keys().next().value!);
    memo.set(day, d);
  }
  return d;
}

function buildLocalDay(day: string): LocalDay {
  const dd = deliveryDay(day);
  const length = dd.quarterHours.length;
  const slots = new Int16Array(length);
  for (let i = 0; i < length; i++) {
    const z = dd.quarterHours[i].toZonedDateTimeISO(MARKET_TIME_ZONE);
    slots[i] = z.hour * 4 + Math.floor(z.minute / 15);
  }
  const indexOfSlot = new Int16Array(SLOTS_PER_DAY).fill(-1);
  for (let i = length - 1; i >= 0; i--) indexOfSlot[slots[i]] = i;
  for (let s = SLOTS_PER_DAY - 1, next = length - 1; s >= 0; s--) {
    if (indexOfSlot[s] < 0) indexOfSlot[s] = next;
    else next = indexOfSlot[s];
  }
  return Object.freeze({
    day,
    startMs: dd.start.epochMilliseconds,
    length,
    weekday: Temporal.PlainDate.from(day).dayOfWeek,
    slots,
    indexOfSlot,
  });
}

/**
 * The consecutive Berlin days from `first` to `last` (both included).
 * @throws {import("../domain/delivery_day.ts").InvalidDeliveryDayError} for a malformed date
 */
export function localDays(first: string, last: string): LocalDay[] {
  const out: LocalDay[] = [];
  for (let d = first; d <= last; d = shiftDay(d, 1)) out.push(localDay(d));
  return out;
}

/**
 * The Berlin day (`YYYY-MM-DD`) of the instant `ms` (UTC); memoized per UTC hour, in which the
 * Berlin date cannot change (Berlin's offsets are whole hours).
 */
export function dayOfInstant(ms: number): string {
  const hour = Math.floor(ms / 3_600_000);
  let day = dayMemo.get(hour);
  if (day === undefined) {
    day = localDayOf(ms);
    if (dayMemo.size >= 8 * MAX_MEMO) dayMemo.delete(dayMemo.keys().next().value!);
    dayMemo.set(hour, day);
  }
  return day;
}
const dayMemo = new Map<number, string>();

/**
 * When the actuals of the quarter-hour starting at `startMs` count as known: 06:00 Berlin on the
 * day after its delivery day, when a DSO delivers the day's metered values (docs/forecasting.md,
 * "What is known when"). UTC ms.
 */
export function actualsKnownAt(startMs: number): number {
  return localTimeOn(shiftDay(dayOfInstant(startMs), 1), "06:00");
}

/** `hhmm` (`HH:MM`, Europe/Berlin) on the Berlin day `day`, as UTC ms; memoized (bounded). */
export function localTimeOn(day: string, hhmm: string): number {
  const key = `${day}T${hhmm}`;
  const known = timeMemo.get(key);
  if (known !== undefined) return known;
  const ms = Temporal.PlainDate.from(day)
    .toZonedDateTime({ timeZone: MARKET_TIME_ZONE, plainTime: Temporal.PlainTime.from(hhmm) })
    .toInstant().epochMilliseconds;
  if (timeMemo.size >= MAX_MEMO) timeMemo.delete(timeMemo.keys().next().value!);
  timeMemo.set(key, ms);
  return ms;
}
const timeMemo = new Map<string, number>();

/** The Berlin day `n` days after `day` (before, for a negative `n`); memoized. */
export function shiftDay(day: string, n: number): string {
  const key = `${day}|${n}`;
  let shifted = shiftMemo.get(key);
  if (shifted === undefined) {
    shifted = addDays(day, n);
    if (shiftMemo.size >= MAX_MEMO) shiftMemo.delete(shiftMemo.keys().next().value!);
    shiftMemo.set(key, shifted);
  }
  return shifted;
}
const shiftMemo = new Map<string, string>();
