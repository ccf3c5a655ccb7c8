/**
 * One location of an MSCONS message while it is read (`./mscons.ts`): its owner, its period, its
 * line's OBIS code, and its quantities as they complete — a `QTY` is complete when its interval
 * (`DTM+163`, `DTM+164`) and its status (`STS`, after the interval for a substitute value) have
 * been read, i.e. when the next `QTY`, `LIN`, `LOC` or `UNT` comes. The rules each quantity must
 * keep (one UTC quarter-hour, contiguous, inside the location's period) are checked here; what is
 * wrong is handed to `problem` in words. Pure.
 * @module
 */
import { MARKET_TIME_ZONE } from "../domain/delivery_day.ts";
import { QUALITY } from "./mscons_codes.ts";
import {
  isoMinute,
  type MeteredSeries,
  onQuarterHour,
  QH_MS,
  type SeriesOwner,
  type SubstituteNote,
} from "./series.ts";

/** Kinds of refusal a location reports (each once per location). */
export type LocationProblem =
  | "value_error.mscons"
  | "value_error.quarter_hour"
  | "value_error.gap"
  | "value_error.unit"
  | "value_error.decimal_mark";

/** Reports a problem of the segment at `position` (`tag`, `text`); the reader words the place. */
export type Report = (
  s: { tag: string; position: number; text: () => string },
  msg: string,
  type: LocationProblem,
) => void;

/** A location being read. */
export class OpenLocation {
  readonly owner: SeriesOwner;
  /** Where its `LOC` segment is, for sentences (`MeteredSeries.where`). */
  readonly where: string;
  /** Its own period (`DTM+163/164` before its line), UTC ms. */
  readonly period: { start?: number; end?: number } = {};
  /** Lines (`LIN`) read. */
  lines = 0;
  /** OBIS code of its line (`PIA+5`), as written (`1-1:1.29.0`). */
  obis: string | undefined;
  /** Monthly settlement series: month (`DTM+492`, `YYYY-MM`) and version (`DTM+293`, UTC ms). */
  month: string | undefined;
  version: number | undefined;
  /** Kinds of problem reported for this location (each is reported once per location). */
  readonly reported = new Set<string>();

  readonly #kwh: number[] = [];
  #quality: number[] | null = null;
  #substitutes: Record<number, SubstituteNote> | undefined;
  #start: number | undefined;
  #next: number | undefined;
  /** The quantity read last (kWh, `NaN` = missing), its kind and its segment; 0 = none. */
  #value = 0;
  #kind = 0;
  #position = 0;
  #note: SubstituteNote | null = null;
  /** The interval of that quantity (`DTM+163`, `DTM+164`), UTC ms. */
  readonly #interval: { start?: number; end?: number } = {};

  constructor(owner: SeriesOwner, where: string) {
    this.owner = owner;
    this.where = where;
  }

  /** Holds a quantity (kWh; `NaN` for a missing value) until its interval is read. */
  quantity(kwh: number, kind: number, position: number): void {
    this.#value = kwh;
    this.#kind = kind;
    this.#position = position;
    this.#note = null;
  }

  /** A `DTM+163` (start) or `DTM+164` (end): the location's period before its line, else the interval. */
  date(qualifier: "163" | "164", ms: number): void {
    const target = this.lines === 0 ? this.period : this.#interval;
    if (qualifier === "163") target.start = ms;
    else target.end = ms;
  }

  /** An `STS` of the quantity read last: `Z32` its method, `Z40` its reason (others are kept out). */
  status(category: string | undefined, code: string | undefined): void {
    if (!this.#position || (category !== "Z32" && category !== "Z40")) return;
    this.#note ??= { method: null, reason: null };
    if (category === "Z32") this.#note.method = code ?? null;
    else this.#note.reason = code ?? null;
  }

  /** Completes the quantity read last (if any), checking its interval. */
  flush(report: Report): void {
    if (!this.#position) return;
    const { start, end } = this.#interval;
    const seg = { tag: "QTY", position: this.#position, text: () => "QTY" };
    if (start === undefined || end === undefined) {
      report(
        seg,
        "the quantity has no interval (DTM+163 and DTM+164 after it)",
        "value_error.mscons",
      );
    } else if (!onQuarterHour(start) || end - start !== QH_MS) {
      report(
        seg,
        `the interval ${isoMinute(start)}–${isoMinute(end)} is not one UTC quarter-hour`,
        "value_error.quarter_hour",
      );
    } else if (this.#next !== undefined && start !== this.#next) {
      report(
        seg,
        start > this.#next
          ? `gap: nothing from ${isoMinute(this.#next)} to ${isoMinute(start)}`
          : `the interval starting ${isoMinute(start)} overlaps the one before`,
        "value_error.gap",
      );
    } else {
      this.#start ??= start;
      this.#push();
      this.#next = end;
    }
    this.#position = 0;
    this.#interval.start = this.#interval.end = undefined;
  }

  #push(): void {
    const i = this.#kwh.length;
    this.#kwh.push(this.#value);
    if (this.#kind !== QUALITY.TRUE && this.#quality === null) {
      this.#quality = new Array<number>(i).fill(QUALITY.TRUE);
    }
    this.#quality?.push(this.#kind);
    if (this.#kind === QUALITY.SUBSTITUTE) {
      (this.#substitutes ??= {})[i] = this.#note ?? { method: null, reason: null };
    }
  }

  /**
   * The location as a series, once its last quantity is flushed; `null` (and a problem reported)
   * when it has no quantities or they do not cover its period, or when a problem was reported.
   * @param at the segment that closes the location, for the sentence
   */
  close(
    at: { tag: string; position: number; text: () => string },
    report: Report,
  ): MeteredSeries | null {
    this.flush(report);
    if (this.reported.size > 0) return null;
    if (this.#kwh.length === 0) {
      report(at, "the location has no quantities", "value_error.mscons");
      return null;
    }
    const { period } = this;
    const first = this.#start!, end = this.#next!;
    if (
      (period.start !== undefined && period.start !== first) ||
      (period.end !== undefined && period.end !== end)
    ) {
      report(
        at,
        `gap: the quantities cover ${isoMinute(first)}–${
          isoMinute(end)
        }, the location's period is ${isoMinute(period.start ?? first)}–${
          isoMinute(period.end ?? end)
        }`,
        "value_error.gap",
      );
      return null;
    }
    const out: MeteredSeries = {
      owner: this.owner,
      start: first,
      kwh: this.#kwh,
      where: this.where,
    };
    if (this.#quality) out.quality = Uint8Array.from(this.#quality);
    if (this.#substitutes) out.substitutes = this.#substitutes;
    if (this.version !== undefined) out.version = new Date(this.version).toISOString();
    return out;
  }

  /**
   * Why the location, read as a monthly settlement series (`BGM+BK`), cannot be taken: without its
   * month (`DTM+492`) or version (`DTM+293`, AHB 13003 [70]), or with quantities outside its
   * Europe/Berlin month; `undefined` when it can.
   */
  monthProblem(): string | undefined {
    const missing = this.month === undefined
      ? "its settlement month (DTM+492, format 610)"
      : this.version === undefined
      ? "its version (DTM+293, format 304)"
      : null;
    if (missing) return `a monthly settlement series (BGM+BK) needs ${missing}`;
    const start = this.#start!, end = this.#next!;
    if (localMonth(start) === this.month && localMonth(end - 1) === this.month) return undefined;
    return `the quantities ${isoMinute(start)}–${
      isoMinute(end)
    } are not all in the settlement month ${this.month} (Europe/Berlin)`;
  }
}

/** The Europe/Berlin month `YYYY-MM` of an instant. */
function localMonth(ms: number): string {
  return Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(MARKET_TIME_ZONE)
    .toPlainDate().toString().slice(0, 7);
}
