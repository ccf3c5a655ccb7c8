/**
 * Price files in the layouts the German TSOs' data service (netztransparenz.de, "Datenservice")
 * delivers (docs/settlement.md, "Imbalance prices"): one row per quarter-hour, every row in `UTC`
 * (date and times of the UTC quarter-hour), German decimal comma, `N.A.`/`N.E.` where no price is
 * known. Three layouts (the headers as the data service writes them):
 * - reBAP, `/NrvSaldo/reBAP/Qualitaetsgesichert`: `Datum;Zeitzone;von;bis;Datenkategorie;Datentyp;
 *   Einheit;reBAP unterdeckt;reBAP ueberdeckt` (`Datenkategorie` `reBAP`, `Datentyp`
 *   `Qualitätsgesichert`: the reBAP is published only after quality assurance);
 * - the operational estimate of the imbalance price, `/NrvSaldo/AepSchaetzer/Betrieblich`:
 *   `Datum;Zeitzone;von;bis;Datenkategorie;Datentyp;Einheit;AEP-Schätzer;Status`;
 * - the intraday index price, `/IdAep`: `Datum von;(Uhrzeit) von;Zeitzone;(Uhrzeit) bis;Zeitzone;
 *   ID AEP in €/MWh` (ISO dates; both zone columns named `Zeitzone`, or `Zeitzone von`/`bis`).
 * Read with csv-parse (`;`). Pure. Refused in words naming the line: a zone other than UTC, a
 * `bis` that is not 15 minutes after `von`, a unit other than EUR/MWh, a `Datenkategorie` or
 * `Datentyp` of another series, a number that is not German, a quarter-hour twice.
 * @module
 */
import { parse } from "csv-parse/sync";
import { IssueList } from "./errors.ts";
import { germanNumber } from "./german_number.ts";
import type { PricePoint } from "./rebap.ts";
import { isoMinute, QH_MS } from "./series.ts";

/** The data-service layouts, by the header that names them. */
export const DATENSERVICE_HEADERS = {
  rebap_datenservice:
    "Datum;Zeitzone;von;bis;Datenkategorie;Datentyp;Einheit;reBAP unterdeckt;reBAP ueberdeckt",
  aep_estimate: "Datum;Zeitzone;von;bis;Datenkategorie;Datentyp;Einheit;AEP-Schätzer;Status",
  id_aep: "Datum von;(Uhrzeit) von;Zeitzone;(Uhrzeit) bis;Zeitzone;ID AEP in €/MWh",
} as const;

/** The ID AEP header as some clients name its zone columns. */
const ID_AEP_NAMED_ZONES =
  "Datum von;(Uhrzeit) von;Zeitzone von;(Uhrzeit) bis;Zeitzone bis;ID AEP in €/MWh";

/** A data-service layout. */
export type DatenserviceLayout = keyof typeof DATENSERVICE_HEADERS;

/** The layout a header line names, or `null`. */
export function datenserviceLayout(header: string): DatenserviceLayout | null {
  const h = header.split(";").map((c) => c.trim()).join(";");
  if (h === ID_AEP_NAMED_ZONES) return "id_aep";
  for (const [layout, text] of Object.entries(DATENSERVICE_HEADERS)) {
    if (h === text) return layout as DatenserviceLayout;
  }
  return null;
}

/**
 * Reads a data-service file of `layout` (its header already recognised).
 * @returns one point per row, in the file's order
 * @throws {import("./errors.ts").SettlementInputRefused} bad rows, each named by its line
 */
export function parseDatenservice(text: string, layout: DatenserviceLayout): PricePoint[] {
  const issues = new IssueList();
  let table: string[][] = [];
  try {
    table = parse(text, {
      delimiter: ";",
      skip_empty_lines: true,
      trim: true,
      bom: true,
      relax_column_count: true,
    });
  } catch (err) {
    issues.add(["body"], `not valid CSV: ${(err as Error).message}`, "value_error.rebap");
    issues.throwIfAny();
  }
  const data = table.slice(1);
  if (data.length === 0) {
    issues.add(["body", "line 1"], "line 1: no rows after the header", "value_error.rebap");
  }
  const width = DATENSERVICE_HEADERS[layout].split(";").length;
  const out: PricePoint[] = [];
  const seen = new Map<number, number>();
  data.forEach((r, i) => {
    const line = `line ${i + 2}`;
    const bad = (msg: string) => issues.add(["body", line], `${line}: ${msg}`, "value_error.rebap");
    if (r.length !== width) return bad(`expected ${width} columns, got ${r.length}`);
    const row = layout === "id_aep" ? idAepRow(r) : seriesRow(r, layout);
    if (typeof row === "string") return bad(row);
    const twin = seen.get(row.start);
    if (twin !== undefined) {
      return bad(`the quarter-hour ${isoMinute(row.start)} is also on line ${twin}`);
    }
    seen.set(row.start, i + 2);
    out.push(row);
  });
  issues.throwIfAny();
  return out;
}

/** What each series layout must say in `Datenkategorie` and `Datentyp`. */
const SERIES: Record<"rebap_datenservice" | "aep_estimate", [string, string, string]> = {
  rebap_datenservice: [
    "reBAP",
    "Qualitätsgesichert",
    "the data service publishes the reBAP only quality-assured (Qualitätsgesichert); an operational price is the AEP estimate (AEP-Schätzer)",
  ],
  aep_estimate: ["AEP-Schätzer", "Betrieblich", "the AEP estimate is an operational series"],
};

/** A reBAP or AEP-estimate row (`Datum;Zeitzone;von;bis;Datenkategorie;Datentyp;Einheit;…`). */
function seriesRow(
  r: string[],
  layout: "rebap_datenservice" | "aep_estimate",
): PricePoint | string {
  const [datum, zone, von, bis, category, type, unit, a, b] = r;
  const [wantCategory, wantType, why] = SERIES[layout];
  if (category !== wantCategory) return `Datenkategorie ${category} is not ${wantCategory}`;
  if (type !== wantType) return `Datentyp ${type} is not ${wantType}: ${why}`;
  if (unit !== "EUR/MWh") return `unit ${unit} is not EUR/MWh`;
  const d = /^(\d{2})\.(\d{2})\.(\d{4})$/.exec(datum ?? "");
  if (!d) return `expected the date as DD.MM.YYYY, got ${datum}`;
  const start = utcQuarterHour(`${d[3]}-${d[2]}-${d[1]}`, zone, von, bis);
  if (typeof start === "string") return start;
  if (layout === "aep_estimate") {
    const price = germanNumber(a ?? "");
    if (price === undefined) return `the estimate ${a} is not a German number (1.234,56) or N.A.`;
    return { start, short: price, long: price };
  }
  const short = germanNumber(a ?? ""), long = germanNumber(b ?? "");
  if (short === undefined || long === undefined) {
    return `prices ${a};${b} are not German numbers (1.234,56) or N.A.`;
  }
  return { start, short, long };
}

/** An ID AEP row (`Datum von;(Uhrzeit) von;Zeitzone;(Uhrzeit) bis;Zeitzone;ID AEP in €/MWh`). */
function idAepRow(r: string[]): PricePoint | string {
  const [datum, von, zone, bis, zoneEnd, value] = r;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(datum ?? "")) {
    return `expected the date as YYYY-MM-DD, got ${datum}`;
  }
  if (zoneEnd !== zone) return `the zones of von (${zone}) and bis (${zoneEnd}) differ`;
  const start = utcQuarterHour(datum, zone, von, bis);
  if (typeof start === "string") return start;
  const price = germanNumber(value ?? "");
  if (price === undefined) return `ID AEP ${value} is not a German number (1.234,56), N.A. or N.E.`;
  return { start, short: price, long: price };
}

/** The UTC ms of a row's quarter-hour, or why not. */
function utcQuarterHour(
  date: string,
  zone: string | undefined,
  von: string | undefined,
  bis: string | undefined,
): number | string {
  if (zone !== "UTC") return `zone ${zone} is not UTC (the data service delivers UTC rows)`;
  const t = /^(\d{2}):(\d{2})$/.exec(von ?? ""), e = /^(\d{2}):(\d{2})$/.exec(bis ?? "");
  if (!t || !e) return `expected von and bis as HH:MM, got ${von};${bis}`;
  const [y, m, d] = date.split("-").map(Number);
  const start = Date.UTC(y, m - 1, d, +t[1], +t[2]);
  const back = new Date(start);
  if (Number.isNaN(start) || back.getUTCDate() !== d || back.getUTCMonth() !== m - 1) {
    return `${date} ${von} is not a time`;
  }
  if (start % QH_MS !== 0) return `${von} is not the start of a quarter-hour`;
  const end = new Date(start + QH_MS).toISOString().slice(11, 16);
  if (bis !== end) return `bis ${bis} is not 15 minutes after von ${von} (${end})`;
  return start;
}
