/**
 * MSCONS (EDI@Energy "MSCONS Nachrichtenbeschreibung", MIG 2.4c; docs/settlement.md, "MSCONS"):
 * the load profiles of market locations (`LOC+172+<MaLo-ID>`) and balancing-group sums
 * (`LOC+237+<balancing group EIC>+<balancing area EIC>`) as {@link MeteredSeries}.
 *
 * Per location: one line (`LIN`) whose quantities (`QTY+220` true value, `QTY+67` substitute
 * value) each have their interval in `DTM+163` (start) and `DTM+164` (end), format 303
 * (`CCYYMMDDHHMM?+ZZ`, the offset in hours). The location's own `DTM+163/164` before its line, when
 * present, is the period the line must cover. Rules, each refused in words naming the message,
 * segment and location:
 * - every interval is one UTC quarter-hour (start on a quarter-hour, end 15 minutes later);
 * - intervals follow each other without a gap or an overlap, and cover the location's period;
 * - the unit is one we know ({@link UNITS}); a quantity without a unit is refused, never assumed;
 * - the quantity is a number written with the decimal mark `UNA` declares.
 * Pure: no storage; whether a market location is ours is decided by the caller.
 * @module
 */
import {
  decimalNumber,
  EdifactSyntaxError,
  readSegments,
  type Segment,
  type Syntax,
} from "./edifact_segments.ts";
import { IssueList } from "./errors.ts";
import {
  isoMinute,
  type MeteredSeries,
  onQuarterHour,
  ownerText,
  QH_MS,
  type SeriesOwner,
} from "./series.ts";

/**
 * Energy units of `QTY` (UN/ECE Recommendation 20 codes) and their factor to kWh. `D54` (in one
 * public sample) is "watt per square metre" in Recommendation 20, not an energy: refused.
 */
export const UNITS: Readonly<Record<string, number>> = Object.freeze({ KWH: 1, MWH: 1000 });

/** Units of Recommendation 20 met in MSCONS that are not an energy, named in the refusal. */
const NOT_ENERGY: Readonly<Record<string, string>> = Object.freeze({
  D54: "watt per square metre",
  KWT: "kilowatt, a power",
  MAW: "megawatt, a power",
  K3: "kilovolt-ampere reactive hour, a reactive energy",
});

/** What one interchange held. */
export interface MsconsInterchange {
  /** Interchange reference of `UNB` (element 5). */
  reference: string;
  /** Messages (`UNH`) in it. */
  messages: number;
  /** Segments read (the position of the last one). */
  segments: number;
  series: MeteredSeries[];
}

/** Where a problem is: a segment, or the quantity a later segment completes. */
type Where = Pick<Segment, "tag" | "position" | "text">;

/** One location being read. */
interface Open {
  owner: SeriesOwner;
  where: string;
  period: { start?: number; end?: number };
  lines: number;
  kwh: number[];
  start?: number;
  next?: number;
  /** The quantity read last (kWh) and its segment's position; 0 = none waiting for its interval. */
  qtyValue: number;
  qtyPosition: number;
  /** The interval of that quantity (`DTM+163`, `DTM+164`), UTC ms. */
  interval: { start?: number; end?: number };
  /** Kinds of problem reported for this location (each is reported once per location). */
  reported: Set<string>;
}

/**
 * Reads an MSCONS interchange.
 * @throws {import("./errors.ts").SettlementInputRefused} listing every problem (at most 20): not
 *   EDIFACT, not MSCONS, a bad decimal mark, a unit we do not know, an interval off the
 *   quarter-hour grid, a gap or an overlap
 */
export function parseMscons(text: string): MsconsInterchange {
  const issues = new IssueList();
  const series: MeteredSeries[] = [];
  let reference = "";
  let messages = 0;
  let segments = 0;
  let message = "before the first message (UNH)";
  let open: Open | null = null;
  let header = false;

  const problem = (s: Where, msg: string, type: Parameters<IssueList["add"]>[2]) => {
    if (open?.reported.has(type)) return;
    open?.reported.add(type);
    const at = open ? `, ${ownerText(open.owner)}` : "";
    issues.add(
      ["body", message, `segment ${s.position} (${s.tag})`],
      `${message}, segment ${s.position} (${s.text()})${at}: ${msg}`,
      type,
    );
  };
  const flushQty = () => {
    if (!open?.qtyPosition) return;
    const { start, end } = open.interval;
    const position = open.qtyPosition;
    const seg: Where = { tag: "QTY", position, text: () => "QTY" };
    if (start === undefined || end === undefined) {
      problem(
        seg,
        "the quantity has no interval (DTM+163 and DTM+164 after it)",
        "value_error.mscons",
      );
    } else if (!onQuarterHour(start) || end - start !== QH_MS) {
      problem(
        seg,
        `the interval ${isoMinute(start)}–${isoMinute(end)} is not one UTC quarter-hour`,
        "value_error.quarter_hour",
      );
    } else if (open.next !== undefined && start !== open.next) {
      problem(
        seg,
        start > open.next
          ? `gap: nothing from ${isoMinute(open.next)} to ${isoMinute(start)}`
          : `the interval starting ${isoMinute(start)} overlaps the one before`,
        "value_error.gap",
      );
    } else {
      open.start ??= start;
      open.kwh.push(open.qtyValue);
      open.next = end;
    }
    open.qtyPosition = 0;
    open.interval.start = open.interval.end = undefined;
  };
  const closeLocation = (s: Segment) => {
    if (!open) return;
    flushQty();
    const { period } = open;
    if (open.reported.size > 0) {
      // already refused; nothing more to say about it
    } else if (open.kwh.length === 0) {
      problem(s, "the location has no quantities", "value_error.mscons");
    } else if (
      (period.start !== undefined && period.start !== open.start) ||
      (period.end !== undefined && period.end !== open.next)
    ) {
      problem(
        s,
        `gap: the quantities cover ${isoMinute(open.start!)}–${isoMinute(open.next!)}, ` +
          `the location's period is ${isoMinute(period.start ?? open.start!)}–${
            isoMinute(period.end ?? open.next!)
          }`,
        "value_error.gap",
      );
    } else {
      series.push({ owner: open.owner, start: open.start!, kwh: open.kwh, where: open.where });
    }
    open = null;
  };

  try {
    readSegments(text, (s, syntax) => {
      segments = s.position;
      switch (s.tag) {
        case "DTM": // the frequent ones first: 2 DTM and 1 QTY per quarter-hour
          return readDtm(s);
        case "QTY":
          return readQty(s, syntax);
        case "UNB":
          reference = s.at(4) ?? "";
          return;
        case "UNH": {
          closeLocation(s);
          messages++;
          const type = s.at(1);
          message = `message ${s.at(0) ?? messages} (UNH+${s.at(0) ?? ""})`;
          header = true;
          if (type !== "MSCONS") {
            problem(s, `this is a ${type ?? "?"} message, not MSCONS`, "value_error.mscons");
          }
          return;
        }
        case "BGM":
          message = message.replace(/\)$/, `, BGM ${s.at(1) ?? ""})`);
          return;
        case "UNS":
          header = false;
          return;
        case "LOC":
          closeLocation(s);
          open = openLocation(s, message);
          if (!open) {
            problem(
              s,
              "expected LOC+172 (market location) or LOC+237 (balancing group)",
              "value_error.mscons",
            );
          }
          return;
        case "LIN":
          if (!open) return;
          flushQty();
          if (++open.lines > 1) {
            problem(
              s,
              "a second line for the same location; send one series per location",
              "value_error.mscons",
            );
          }
          return;
        case "UNT":
        case "UNZ":
          closeLocation(s);
          return;
      }
    });
  } catch (err) {
    if (!(err instanceof EdifactSyntaxError)) throw err;
    issues.add(
      ["body", message, `segment ${err.position} (${err.tag || "start"})`],
      `${message}, segment ${err.position} (${
        err.tag || "start"
      }): not readable as EDIFACT: ${err.message}`,
      "value_error.edifact",
    );
  }
  if (messages === 0 && !issues.any) {
    issues.add(["body"], "the interchange holds no message (UNH)", "value_error.mscons");
  }
  issues.throwIfAny();
  return { reference, messages, segments, series };

  function readQty(s: Segment, syntax: Syntax) {
    if (!open || header) return;
    flushQty();
    const qualifier = s.at(0, 0), raw = s.at(0, 1), unit = s.at(0, 2);
    if (qualifier !== "220" && qualifier !== "67") {
      return problem(
        s,
        `quantity qualifier ${qualifier} is not a metered value (220 true value or 67 substitute value)`,
        "value_error.mscons",
      );
    }
    if (!unit) {
      return problem(
        s,
        `the quantity has no unit; we take ${Object.keys(UNITS).join(" or ")}`,
        "value_error.unit",
      );
    }
    const factor = Object.hasOwn(UNITS, unit) ? UNITS[unit] : undefined;
    if (factor === undefined) {
      return problem(
        s,
        Object.hasOwn(NOT_ENERGY, unit)
          ? `unit ${unit} is ${
            NOT_ENERGY[unit]
          } (UN/ECE Recommendation 20), not an energy; we take ${Object.keys(UNITS).join(" or ")}`
          : `unit ${unit} is not an energy unit we know (${Object.keys(UNITS).join(", ")})`,
        "value_error.unit",
      );
    }
    const value = decimalNumber(raw ?? "", syntax.decimalMark);
    if (value === undefined) {
      return problem(
        s,
        `the quantity ${raw} is not a number with the decimal mark "${syntax.decimalMark}" that UNA declares`,
        "value_error.decimal_mark",
      );
    }
    open.qtyValue = value * factor;
    open.qtyPosition = s.position;
  }

  function readDtm(s: Segment) {
    if (!open || header) return;
    const qualifier = s.at(0, 0), value = s.at(0, 1), format = s.at(0, 2);
    if (qualifier !== "163" && qualifier !== "164") return;
    const ms = format === "303" ? parse303(value ?? "") : undefined;
    if (ms === undefined) {
      return problem(
        s,
        `expected format 303 (CCYYMMDDHHMM?+ZZ), got ${value}:${format}`,
        "value_error.mscons",
      );
    }
    const target = open.lines === 0 ? open.period : open.interval;
    if (qualifier === "163") target.start = ms;
    else target.end = ms;
  }
}

/** The owner of a `LOC` segment and a fresh reader for it; `null` for another qualifier. */
function openLocation(s: Segment, message: string): Open | null {
  const qualifier = s.at(0);
  const where = locationWhere(message, s.position);
  const base = {
    where,
    period: {},
    lines: 0,
    kwh: [],
    qtyValue: 0,
    qtyPosition: 0,
    interval: {},
    reported: new Set<string>(),
  };
  if (qualifier === "172") {
    return { ...base, owner: { kind: "market_location", malo_id: s.at(1) ?? "" } };
  }
  if (qualifier === "237") {
    return {
      ...base,
      owner: {
        kind: "balancing_group_sum",
        balancing_group: s.at(1) ?? "",
        balancing_area: s.at(2) ?? "",
      },
    };
  }
  return null;
}

/** Where a location's `LOC` segment is, for sentences (`MeteredSeries.where`). */
const locationWhere = (message: string, position: number) =>
  `${message}, segment ${position} (LOC)`;

/**
 * `where` of a series read from a part of an interchange, as in the whole: its `LOC` segment
 * `shift` positions later (`./mscons_parallel.ts`).
 */
export function shiftWhere(where: string, shift: number): string {
  const m = where.match(/^(.*), segment (\d+) \(LOC\)$/);
  return m ? locationWhere(m[1], Number(m[2]) + shift) : where;
}

/** The date (`CCYYMMDD` as a number) of the format-303 value read last, and its UTC midnight. */
let lastDate = -1, lastDateMs = 0;

/** Days of the months of a common year. */
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Format 303 `CCYYMMDDHHMM±ZZ` (offset in hours) as UTC ms; `undefined` when malformed (not 15
 * characters, not digits, no such date, hour over 23 or minute over 59). Read digit by digit, the
 * date's instant once per day: an interchange of 10,000 locations holds two million of them.
 */
export function parse303(v: string): number | undefined {
  // An interval's start is the one before's end: mostly the text read last.
  if (v === lastText) return lastMs;
  lastText = v;
  return lastMs = parse303Text(v);
}

/** The format-303 text read last and its instant. */
let lastText = "", lastMs: number | undefined;

function parse303Text(v: string): number | undefined {
  if (v.length !== 15) return undefined;
  let date = 0, time = 0, off = 0;
  for (let i = 0; i < 15; i++) {
    const d = v.charCodeAt(i) - 48;
    if (i === 12) continue;
    if (d < 0 || d > 9) return undefined;
    if (i < 8) date = date * 10 + d;
    else if (i < 12) time = time * 10 + d;
    else off = off * 10 + d;
  }
  const sign = v.charCodeAt(12), h = (time / 100) | 0, mi = time % 100;
  if ((sign !== 43 && sign !== 45) || h > 23 || mi > 59) return undefined; // 43 "+", 45 "-"
  if (date !== lastDate) {
    const y = (date / 10000) | 0, mo = ((date / 100) | 0) % 100, d = date % 100;
    const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
    if (mo < 1 || mo > 12 || d < 1 || d > MONTH_DAYS[mo - 1] + (mo === 2 && leap ? 1 : 0)) {
      return undefined;
    }
    lastDate = date;
    lastDateMs = Date.UTC(y, mo - 1, d);
  }
  return lastDateMs + h * 3_600_000 + mi * 60_000 - (sign === 43 ? off : -off) * 3_600_000;
}
