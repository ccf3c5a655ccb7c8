/**
 * The German imbalance price (reBAP) in the layout the four German TSOs publish
 * (docs/settlement.md, "Imbalance prices"): `Datum;Zeitzone;von;bis;Einheit;reBAP unterdeckt;reBAP
 * ueberdeckt`, one row per quarter-hour, date `DD.MM.YYYY`, local times with the zone of each row
 * (`CET` = UTC+1, `CEST` = UTC+2), German numbers (`1.234,56`, may be negative), `N.A.` where no
 * price is known yet. Read with csv-parse (`;`). Pure.
 *
 * Rules, each refused in words naming the line: the unit is `EUR/MWh`; the zone is the one Europe/
 * Berlin has at that time; `bis` is 15 minutes after `von` in local time (at the spring change
 * `01:45`–`03:00`); a quarter-hour appears once.
 * @module
 */
import { parse } from "csv-parse/sync";
import { MARKET_TIME_ZONE } from "../domain/delivery_day.ts";
import { IssueList } from "./errors.ts";
import { germanNumber } from "./german_number.ts";

export { germanNumber } from "./german_number.ts";
import { isoMinute, QH_MS } from "./series.ts";

/** The header, as published. */
export const REBAP_HEADER = [
  "Datum",
  "Zeitzone",
  "von",
  "bis",
  "Einheit",
  "reBAP unterdeckt",
  "reBAP ueberdeckt",
] as const;

/**
 * One quarter-hour's prices, EUR/MWh; `null` = `N.A.` (not known yet). A row of the AEP estimate or
 * of ID AEP has its one price in both.
 */
export interface PricePoint {
  /** UTC ms of the quarter-hour's start. */
  start: number;
  /** Price for a balancing group that is short (took more than scheduled). */
  short: number | null;
  /** Price for a balancing group that is long. */
  long: number | null;
}

const OFFSET_H: Record<string, number> = { CET: 1, CEST: 2 };

/** True when the first line of `text` is the reBAP header (the inbox recognises files by it). */
export function isRebapCsv(text: string): boolean {
  const first = text.replace(/^\uFEFF/, "").split(/\r?\n/, 1)[0].trim();
  return first.split(";").map((h) => h.trim()).join(";") === REBAP_HEADER.join(";");
}

/**
 * Reads a reBAP file.
 * @returns one point per row, in the file's order
 * @throws {import("./errors.ts").SettlementInputRefused} a wrong header, or bad rows (each named
 *   by its line)
 */
export function parseRebap(text: string): PricePoint[] {
  const issues = new IssueList();
  let table: string[][] = [];
  try {
    table = parse(text, { delimiter: ";", skip_empty_lines: true, trim: true, bom: true });
  } catch (err) {
    issues.add(["body"], `not valid CSV: ${(err as Error).message}`, "value_error.rebap");
    issues.throwIfAny();
  }
  const [header = [], ...data] = table;
  if (header.join(";") !== REBAP_HEADER.join(";") || data.length === 0) {
    issues.add(
      ["body", "line 1"],
      data.length === 0 && header.join(";") === REBAP_HEADER.join(";")
        ? "line 1: no rows after the header"
        : `line 1: expected the header ${REBAP_HEADER.join(";")}`,
      "value_error.rebap",
    );
    issues.throwIfAny();
  }
  const out: PricePoint[] = [];
  const seen = new Map<number, number>();
  data.forEach((r, i) => {
    const line = `line ${i + 2}`;
    const bad = (msg: string) => issues.add(["body", line], `${line}: ${msg}`, "value_error.rebap");
    const [datum, zone, von, bis, unit, shortText, longText] = r;
    if (unit !== "EUR/MWh") return bad(`unit ${unit} is not EUR/MWh`);
    const d = /^(\d{2})\.(\d{2})\.(\d{4})$/.exec(datum ?? "");
    const t = /^(\d{2}):(\d{2})$/.exec(von ?? "");
    const offset = OFFSET_H[zone ?? ""];
    if (!d || !t || offset === undefined) {
      return bad(`expected DD.MM.YYYY;CET|CEST;HH:MM, got ${datum};${zone};${von}`);
    }
    const start = Date.UTC(+d[3], +d[2] - 1, +d[1], +t[1], +t[2]) - offset * 3_600_000;
    if (start % QH_MS !== 0) return bad(`${von} is not the start of a quarter-hour`);
    const local = Temporal.Instant.fromEpochMilliseconds(start).toZonedDateTimeISO(
      MARKET_TIME_ZONE,
    );
    if (local.offsetNanoseconds !== offset * 3.6e12) {
      return bad(`${datum} ${von} ${zone}: Europe/Berlin is not on ${zone} then`);
    }
    const end = local.add({ minutes: 15 }).toPlainTime().toString().slice(0, 5);
    if (bis !== end) return bad(`bis ${bis} is not 15 minutes after von ${von} (${end})`);
    const short = germanNumber(shortText ?? "");
    const long = germanNumber(longText ?? "");
    if (short === undefined || long === undefined) {
      return bad(`prices ${shortText};${longText} are not German numbers (1.234,56) or N.A.`);
    }
    const twin = seen.get(start);
    if (twin !== undefined) {
      return bad(`the quarter-hour ${isoMinute(start)} is also on line ${twin}`);
    }
    seen.set(start, i + 2);
    out.push({ start, short, long });
  });
  issues.throwIfAny();
  return out;
}
