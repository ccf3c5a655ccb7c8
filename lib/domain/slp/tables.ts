/**
 * Loader of the BDEW standard load profile tables in `data/bdew/` (see data/bdew/SOURCE.md; the
 * CSV files come from oemof/demandlib v0.2.2, MIT licence, data/bdew/LICENSE-demandlib.txt).
 *
 * - `selp_series.csv`: 1999 profiles H0, G0..G6, L0..L2; 3 seasons x 7 weekdays x 96
 *   quarter-hours; weekdays 1-5 are the working day (they are equal; the loader checks it),
 *   6 Saturday, 7 Sunday/holiday. Unit: average kW per 1,000 kWh annual consumption.
 * - `h25.csv`, `g25.csv`, `l25.csv`, `p25.csv`, `s25.csv`: 2025 profiles; two header rows
 *   (German month name x day type `WT`/`SA`/`FT`), then 96 rows `00:00-00:15`..`23:45-00:00`.
 *   Unit: kWh per quarter-hour for 1,000,000 kWh annual consumption.
 *
 * Values are kept in the unit of the table (no conversion, no dynamisation) in one
 * `Float64Array` per profile, laid out `[(period * 3 + dayType) * 96 + quarterHour]` where period
 * is the season index (`SEASONS`: winter, summer, transition) for 1999 profiles and the month
 * index 0..11 for 2025 profiles, and dayType the `DAY_TYPES` index (workday, saturday, sunday).
 * The files are simple (no quoting), so plain `split` parses them. Tables are read once per
 * directory (synchronously, needs read permission).
 * @module
 */
import { DAY_TYPES, type DayType, type Season, SEASONS } from "./calendar.ts";

/** 1999 BDEW profiles (selp_series.csv). */
export const PROFILES_1999 = [
  "H0",
  "G0",
  "G1",
  "G2",
  "G3",
  "G4",
  "G5",
  "G6",
  "L0",
  "L1",
  "L2",
] as const;
/** 2025 BDEW profiles (one CSV each, lower-case file name). */
export const PROFILES_2025 = ["H25", "G25", "L25", "P25", "S25"] as const;
/** A 1999 profile code. */
export type Profile1999 = typeof PROFILES_1999[number];
/** A 2025 profile code. */
export type Profile2025 = typeof PROFILES_2025[number];

/** Quarter-hours per table day (local wall-clock 00:00..23:45). */
export const TABLE_QUARTER_HOURS = 96;

/** The parsed tables, values in table units (see module doc for layout and units). */
export interface SlpTables {
  /** Per 1999 profile: 3 seasons x 3 day types x 96 values, average kW per 1,000 kWh/a. */
  readonly y1999: Readonly<Record<Profile1999, Float64Array>>;
  /** Per 2025 profile: 12 months x 3 day types x 96 values, kWh per quarter-hour per 1e6 kWh/a. */
  readonly y2025: Readonly<Record<Profile2025, Float64Array>>;
}

/** Thrown when a table file is missing or does not have the documented layout. */
export class SlpTableError extends Error {
  readonly code = "ERR_SLP_TABLE";
  constructor(file: string, detail: string) {
    super(`BDEW table ${file}: ${detail}`);
    this.name = "SlpTableError";
  }
}

const DEFAULT_DIR = new URL("../../../data/bdew/", import.meta.url);
const MONTHS = [
  "Januar",
  "Februar",
  "März",
  "April",
  "Mai",
  "Juni",
  "Juli",
  "August",
  "September",
  "Oktober",
  "November",
  "Dezember",
];
const DAY_TYPE_2025: Record<string, number> = { WT: 0, SA: 1, FT: 2 };
const loaded = new Map<string, SlpTables>();

/**
 * Loads and parses all tables from `dir` (default: `data/bdew/` of this repository), once per
 * directory.
 * @param dir directory URL (with trailing slash) or file-system path
 * @throws {SlpTableError} for a missing file or an unexpected layout
 */
export function loadSlpTables(dir: URL | string = DEFAULT_DIR): SlpTables {
  const base = typeof dir === "string" ? dir.replace(/\/?$/, "/") : dir.href;
  const cached = loaded.get(base);
  if (cached) return cached;
  const read = (name: string): string => {
    try {
      return Deno.readTextFileSync(typeof dir === "string" ? base + name : new URL(name, dir));
    } catch (e) {
      throw new SlpTableError(name, `cannot be read (${(e as Error).message})`);
    }
  };
  const y2025 = {} as Record<Profile2025, Float64Array>;
  for (const code of PROFILES_2025) {
    const file = `${code.toLowerCase()}.csv`;
    y2025[code] = parse2025(file, read(file));
  }
  const tables: SlpTables = { y1999: parse1999("selp_series.csv", read("selp_series.csv")), y2025 };
  loaded.set(base, tables);
  return tables;
}

/** The 96 values (table unit, 00:00..23:45 local) of a 1999 profile for a season and day type. */
export function tableDay1999(
  tables: SlpTables,
  code: Profile1999,
  season: Season,
  dayType: DayType,
): Float64Array {
  const offset = (SEASONS.indexOf(season) * 3 + DAY_TYPES.indexOf(dayType)) * TABLE_QUARTER_HOURS;
  return tables.y1999[code].subarray(offset, offset + TABLE_QUARTER_HOURS);
}

/** The 96 values (table unit, 00:00..23:45 local) of a 2025 profile for a month (1..12) and day type. */
export function tableDay2025(
  tables: SlpTables,
  code: Profile2025,
  month: number,
  dayType: DayType,
): Float64Array {
  const offset = ((month - 1) * 3 + DAY_TYPES.indexOf(dayType)) * TABLE_QUARTER_HOURS;
  return tables.y2025[code].subarray(offset, offset + TABLE_QUARTER_HOURS);
}

function lines(text: string): string[] {
  return text.split(/\r?\n/).filter((l) => l.trim() !== "");
}

function number(file: string, cell: string, where: string): number {
  const v = Number(cell);
  if (cell.trim() === "" || !Number.isFinite(v)) {
    throw new SlpTableError(file, `${where}: "${cell}" is not a number`);
  }
  return v;
}

/** Quarter-hour index 0..95 of a wall-clock time `HH:MM` on a quarter-hour boundary. */
function quarterIndex(file: string, hhmm: string, where: string): number {
  const m = /^(\d{2}):(\d{2})/.exec(hhmm);
  const h = m ? Number(m[1]) : NaN;
  const min = m ? Number(m[2]) : NaN;
  if (!(h < 24 && min < 60 && min % 15 === 0)) {
    throw new SlpTableError(file, `${where}: "${hhmm}" is not a quarter-hour`);
  }
  return h * 4 + min / 15;
}

function parse1999(file: string, text: string): Record<Profile1999, Float64Array> {
  const [header, ...rows] = lines(text);
  const cols = header.split(",");
  const colOf = PROFILES_1999.map((code) => {
    const i = cols.indexOf(code.toLowerCase());
    if (i < 0) throw new SlpTableError(file, `column ${code.toLowerCase()} missing`);
    return i;
  });
  const size = SEASONS.length * DAY_TYPES.length * TABLE_QUARTER_HOURS;
  const out = PROFILES_1999.map(() => new Float64Array(size).fill(NaN));
  for (const [r, row] of rows.entries()) {
    const cells = row.split(",");
    const where = `row ${r + 2}`;
    const season = SEASONS.indexOf(cells[1] as Season);
    const weekday = Number(cells[2]);
    if (season < 0 || !(weekday >= 1 && weekday <= 7) || !Number.isInteger(weekday)) {
      throw new SlpTableError(file, `${where}: bad period/weekday "${cells[1]},${cells[2]}"`);
    }
    const dayType = weekday <= 5 ? 0 : weekday - 5;
    const q = quarterIndex(file, (cells[0] ?? "").slice(11, 16), where);
    const at = (season * 3 + dayType) * TABLE_QUARTER_HOURS + q;
    for (const [p, col] of colOf.entries()) {
      const v = number(file, cells[col] ?? "", where);
      // Weekdays 1-5 must agree: they are one working-day profile.
      if (!Number.isNaN(out[p][at]) && out[p][at] !== v) {
        throw new SlpTableError(file, `${where}: working days differ for ${PROFILES_1999[p]}`);
      }
      out[p][at] = v;
    }
  }
  for (const [p, values] of out.entries()) {
    if (values.some(Number.isNaN)) {
      throw new SlpTableError(file, `${PROFILES_1999[p]} is incomplete`);
    }
  }
  return Object.fromEntries(PROFILES_1999.map((c, p) => [c, out[p]])) as Record<
    Profile1999,
    Float64Array
  >;
}

function parse2025(file: string, text: string): Float64Array {
  const [monthRow, typeRow, ...rows] = lines(text);
  const months = (monthRow ?? "").split(",");
  const types = (typeRow ?? "").split(",");
  if (rows.length !== TABLE_QUARTER_HOURS) {
    throw new SlpTableError(file, `${rows.length} quarter-hour rows, expected 96`);
  }
  const offsets: number[] = [];
  for (let c = 1; c < months.length; c++) {
    const month = MONTHS.indexOf(months[c]);
    const dayType = DAY_TYPE_2025[types[c]];
    if (month < 0 || dayType === undefined) {
      throw new SlpTableError(file, `column ${c + 1}: bad header "${months[c]}/${types[c]}"`);
    }
    offsets.push((month * 3 + dayType) * TABLE_QUARTER_HOURS);
  }
  if (new Set(offsets).size !== 36) {
    throw new SlpTableError(file, "expected 12 months x 3 day types");
  }
  const out = new Float64Array(36 * TABLE_QUARTER_HOURS);
  for (const [r, row] of rows.entries()) {
    const cells = row.split(",");
    const where = `row ${r + 3}`;
    const q = quarterIndex(file, cells[0], where);
    if (q !== r) throw new SlpTableError(file, `${where}: quarter-hour ${cells[0]} out of order`);
    if (cells.length !== offsets.length + 1) throw new SlpTableError(file, `${where}: bad width`);
    for (const [c, offset] of offsets.entries()) {
      out[offset + q] = number(file, cells[c + 1], where);
    }
  }
  return out;
}
