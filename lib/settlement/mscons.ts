/**
 * MSCONS as German market communication sends it (EDI@Energy MSCONS AHB FV2504, message version
 * 2.4c, valid from 2025-04-01; older versions such as 2.4b still read; docs/settlement.md,
 * "MSCONS"): load profiles of market locations and balancing-group sums as {@link MeteredSeries}.
 *
 * A message is read by its Prüfidentifikator (`RFF+Z13`, `./mscons_codes.ts`): 13025 the load
 * profile of a market location (`LOC+172+<MaLo-ID>`), 13003 a balancing-group sum of a MaBiS
 * metering point (`LOC+172+<Zählpunktbezeichnung>`; daily `BGM+Z39`, or the monthly settlement
 * series `BGM+BK` with its month `DTM+492` and version `DTM+293`); a gas message is refused; any
 * other (or none) is read by its `LOC` qualifier as older versions were (`LOC+172` a market
 * location, `LOC+237+<balancing group>+<balancing area>` a balancing-group sum).
 *
 * Per location: one line (`LIN`, its OBIS code in `PIA+5`) whose quantities (`QTY`) each have
 * their interval in `DTM+163`/`DTM+164` (format 303, UTC in the handbook) and, for a substitute
 * value, its method and reason in `STS`. The qualifier says what a value is (true, substitute,
 * provisional, missing, energy summed) and is kept per value. The unit is the `QTY`'s own (older
 * versions: `KWH`, `MWH`) or, where it has none (the handbook's rule), the OBIS code's. Every
 * problem is refused in words naming the message, segment and location. Pure: no storage; whether
 * a market location or a metering point is ours is decided by the caller.
 * @module
 */
import {
  decimalNumber,
  EdifactSyntaxError,
  readSegments,
  type Segment,
  type Syntax,
} from "./edifact_segments.ts";
import { parse303, parse304, parse610 } from "./edifact_dates.ts";
import { IssueList } from "./errors.ts";
import {
  type MessageKind,
  messageKindOf,
  NOT_ENERGY,
  OBIS_ENERGY,
  obisProblem,
  PRUEFIDENTIFIKATOREN,
  QTY_QUALIFIERS,
  QUALITY,
  UNITS,
} from "./mscons_codes.ts";
import { type LocationProblem, OpenLocation } from "./mscons_location.ts";
import { type MeteredSeries, ownerText } from "./series.ts";
import { METERING_POINT } from "../domain/metering_point.ts";

export { UNITS } from "./mscons_codes.ts";

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

/** What is known of the message being read. */
interface Message {
  /** `message 1 (UNH+1, BGM …)`, for sentences. */
  name: string;
  /** Prüfidentifikator (`RFF+Z13`), when given. */
  pid: string | undefined;
  kind: MessageKind;
  /** Document name code of `BGM` (`Z48`, `Z39`, `BK`, …). */
  bgm: string | undefined;
  /** True while its header (before `UNS`) is read. */
  header: boolean;
  /** True when the message is refused as a whole (its locations are skipped). */
  refused: boolean;
  /** The sender's market partner id (`NAD+MS`), e.g. the DSO of a balancing-group sum. */
  sender?: string;
}

/** A message before its header is read. */
const newMessage = (name: string, header: boolean): Message => ({
  name,
  pid: undefined,
  kind: "by_location",
  bgm: undefined,
  header,
  refused: false,
});

/**
 * Reads an MSCONS interchange.
 * @throws {import("./errors.ts").SettlementInputRefused} listing every problem (at most 20): not
 *   EDIFACT, not MSCONS, a gas message, a bad decimal mark, a unit or OBIS code we do not know, a
 *   qualifier we do not know, an interval off the quarter-hour grid, a gap or an overlap, a sum
 *   whose metering point is no Zählpunktbezeichnung, a monthly series without its version
 */
export function parseMscons(text: string): MsconsInterchange {
  const issues = new IssueList();
  const series: MeteredSeries[] = [];
  let reference = "";
  let messages = 0;
  let segments = 0;
  let msg = newMessage("before the first message (UNH)", false);
  let open: OpenLocation | null = null;

  const problem = (s: Where, text: string, type: LocationProblem) => {
    if (open?.reported.has(type)) return;
    open?.reported.add(type);
    const at = open ? `, ${ownerText(open.owner)}` : "";
    issues.add(
      ["body", msg.name, `segment ${s.position} (${s.tag})`],
      `${msg.name}, segment ${s.position} (${s.text()})${at}: ${text}`,
      type,
    );
  };
  const closeLocation = (s: Segment) => {
    if (!open) return;
    const read = open.close(s, problem);
    const why = read && msg.bgm === "BK" ? open.monthProblem() : undefined;
    if (why) {
      problem(s, why, why.startsWith("a monthly") ? "value_error.mscons" : "value_error.gap");
    } else if (read) series.push(msg.sender ? { ...read, sender: msg.sender } : read);
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
        case "STS":
          if (open && !msg.header) open.status(s.at(0), s.at(2));
          return;
        case "UNB":
          reference = s.at(4) ?? "";
          return;
        case "UNH": {
          closeLocation(s);
          messages++;
          const type = s.at(1);
          msg = newMessage(`message ${s.at(0) ?? messages} (UNH+${s.at(0) ?? ""})`, true);
          if (type !== "MSCONS") {
            problem(s, `this is a ${type ?? "?"} message, not MSCONS`, "value_error.mscons");
          }
          return;
        }
        case "BGM":
          msg.bgm = s.at(0);
          msg.name = msg.name.replace(/\)$/, `, BGM ${s.at(1) ?? ""})`);
          return;
        case "RFF":
          if (msg.header && s.at(0) === "Z13") readPid(s);
          return;
        case "NAD": // the sender (the DSO of a sum): NAD+MS+<MP-ID>
          if (msg.header && s.at(0) === "MS") msg.sender = s.at(1);
          return;
        case "UNS":
          msg.header = false;
          return;
        case "LOC":
          closeLocation(s);
          if (msg.refused) return;
          open = openLocation(s);
          return;
        case "LIN":
          if (!open) return;
          open.flush(problem);
          if (++open.lines > 1) {
            problem(
              s,
              "a second line for the same location; send one series per location",
              "value_error.mscons",
            );
          }
          return;
        case "PIA":
          // PIA+5+<OBIS>:SRW: what the line measures (a product id of another kind is no OBIS).
          if (open && s.at(0) === "5" && s.at(1, 1) === "SRW") open.obis = s.at(1, 0);
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
      ["body", msg.name, `segment ${err.position} (${err.tag || "start"})`],
      `${msg.name}, segment ${err.position} (${
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

  function readPid(s: Segment) {
    msg.pid = s.at(0, 1);
    msg.kind = messageKindOf(msg.pid);
    if (msg.kind === "gas") {
      msg.refused = true;
      const name = PRUEFIDENTIFIKATOREN[msg.pid!].name;
      problem(
        s,
        `Prüfidentifikator ${msg.pid} (${name}) is a gas message; we take electricity: 13025 (load profile of a market location) and 13003 (balancing-group sum)`,
        "value_error.mscons",
      );
    }
  }

  function openLocation(s: Segment): OpenLocation | null {
    const qualifier = s.at(0), id = s.at(1) ?? "";
    const where = locationWhere(msg.name, s.position);
    if (qualifier === "172" && msg.kind === "metering_point_sum") {
      const loc = new OpenLocation({ kind: "metering_point_sum", metering_point: id }, where);
      open = loc;
      if (!METERING_POINT.test(id)) {
        problem(
          s,
          `a balancing-group sum (Prüfidentifikator 13003) names a MaBiS metering point (Zählpunktbezeichnung: 33 characters, DE, 11 digits, 20 letters or digits); got ${id}`,
          "value_error.mscons",
        );
      }
      return loc;
    }
    if (qualifier === "172") {
      return new OpenLocation({ kind: "market_location", malo_id: id }, where);
    }
    if (qualifier === "237" && msg.kind !== "market_location") {
      return new OpenLocation(
        { kind: "balancing_group_sum", balancing_group: id, balancing_area: s.at(2) ?? "" },
        where,
      );
    }
    problem(
      s,
      msg.kind === "market_location"
        ? "a load profile (Prüfidentifikator 13025) names its market location in LOC+172"
        : "expected LOC+172 (market location or MaBiS metering point) or LOC+237 (balancing group)",
      "value_error.mscons",
    );
    return null;
  }

  function readQty(s: Segment, syntax: Syntax) {
    if (!open || msg.header) return;
    open.flush(problem);
    const qualifier = s.at(0, 0) ?? "", raw = s.at(0, 1), unit = s.at(0, 2);
    const kind = Object.hasOwn(QTY_QUALIFIERS, qualifier) ? QTY_QUALIFIERS[qualifier] : undefined;
    if (kind === undefined) {
      return problem(
        s,
        `quantity qualifier ${qualifier} is not one we read (220 true value, 67 substitute value, Z18 provisional value, Z30 missing value, 79 energy summed)`,
        "value_error.mscons",
      );
    }
    const factor = unit ? unitFactor(s, unit) : obisFactor(s, open.obis);
    if (factor === undefined) return;
    if (kind === QUALITY.MISSING) return open.quantity(NaN, kind, s.position);
    const value = decimalNumber(raw ?? "", syntax.decimalMark);
    if (value === undefined) {
      return problem(
        s,
        `the quantity ${raw} is not a number with the decimal mark "${syntax.decimalMark}" that UNA declares`,
        "value_error.decimal_mark",
      );
    }
    if (value < 0 && qualifier !== "79" && msg.kind !== "by_location") {
      return problem(
        s,
        `the quantity ${raw} is negative; the handbook allows ≥ 0 (MSCONS AHB ${msg.pid}, condition [902])`,
        "value_error.mscons",
      );
    }
    open.quantity(value * factor, kind, s.position);
  }

  /** The factor of an explicit unit to kWh; `undefined` (refused) for one we do not take. */
  function unitFactor(s: Segment, unit: string): number | undefined {
    if (Object.hasOwn(UNITS, unit)) return UNITS[unit] * sumSign(open!.obis);
    const known = Object.keys(UNITS).join(" or ");
    problem(
      s,
      Object.hasOwn(NOT_ENERGY, unit)
        ? `unit ${unit} is ${
          NOT_ENERGY[unit]
        } (UN/ECE Recommendation 20), not an energy; we take ${known}`
        : `unit ${unit} is not an energy unit we know (${Object.keys(UNITS).join(", ")})`,
      "value_error.unit",
    );
    return undefined;
  }

  /** The factor a quantity without a unit takes from its line's OBIS code (AHB FV2504). */
  function obisFactor(s: Segment, obis: string | undefined): number | undefined {
    const why = obisProblem(obis);
    if (why) {
      problem(s, why, "value_error.unit");
      return undefined;
    }
    return OBIS_ENERGY[obis!].kwh * sumSign(obis);
  }

  /** −1 for a balancing-group sum of feed-in (OBIS `1-1:2.29.0`): sums are consumption +. */
  function sumSign(obis: string | undefined): number {
    if (!open || open.owner.kind === "market_location") return 1;
    return obis && OBIS_ENERGY[obis]?.direction === "feed_in" ? -1 : 1;
  }

  function readDtm(s: Segment) {
    if (!open || msg.header) return;
    const qualifier = s.at(0, 0), value = s.at(0, 1) ?? "", format = s.at(0, 2);
    if (qualifier === "163" || qualifier === "164") {
      const ms = format === "303" ? parse303(value) : undefined;
      if (ms === undefined) {
        return problem(
          s,
          `expected format 303 (CCYYMMDDHHMM?+ZZ), got ${value}:${format}`,
          "value_error.mscons",
        );
      }
      return open.date(qualifier, ms);
    }
    if (msg.bgm !== "BK") return;
    if (qualifier === "492") {
      open.month = format === "610" ? parse610(value) : undefined;
      if (open.month === undefined) {
        problem(
          s,
          `expected the month as format 610 (CCYYMM), got ${value}:${format}`,
          "value_error.mscons",
        );
      }
    } else if (qualifier === "293") {
      open.version = format === "304" ? parse304(value) : undefined;
      if (open.version === undefined) {
        problem(
          s,
          `expected the version as format 304 (CCYYMMDDHHMMSS?+ZZ), got ${value}:${format}`,
          "value_error.mscons",
        );
      }
    }
  }
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
