/**
 * A quarter-hour history in OpenSTEF's layout (docs/forecasting.md, "The backtest"): the first
 * column the quarter-hour's UTC start (ISO 8601 with an offset, e.g. `2020-08-15 00:00:00+00:00`),
 * named columns `load` (MW), `temp` (°C), `radiation` and `windspeed_100m` (m/s); more columns are
 * ignored. Another file's names map onto these with {@link ColumnMap}. Read with csv-parse.
 *
 * OpenSTEF's `radiation` is energy per m² accumulated over an hour, J/m² (its August noon values
 * reach 2.5 × 10⁶, i.e. ≈ 700 W/m², and it is 0 at night): ÷ 3600 gives the mean irradiance in
 * W/m². `radiationUnit: "W/m2"` reads a file that has the irradiance already.
 *
 * Refused in words, naming the file, line and column: a missing column, a start without an offset
 * or off the quarter-hour grid, a start that repeats, a value that is not a number. An empty cell
 * is a missing value (NaN).
 * @module
 */
import { parse } from "csv-parse/sync";
import { QH_MS } from "../../settlement/series.ts";

/** Thrown for a history, reference or flag the backtest cannot use; `message` says why. */
export class BacktestInputError extends Error {
  readonly code = "ERR_BACKTEST_INPUT";
  constructor(message: string) {
    super(message);
    this.name = "BacktestInputError";
  }
}

/** The canonical columns the backtest reads. */
export const HISTORY_COLUMNS = ["load", "temp", "radiation", "windspeed_100m"] as const;
/** One of {@link HISTORY_COLUMNS}. */
export type HistoryColumn = typeof HISTORY_COLUMNS[number];
/** Canonical column → the file's column name. */
export type ColumnMap = Partial<Record<HistoryColumn, string>>;

/** The unit of the radiation column. */
export type RadiationUnit = "J/m2" | "W/m2";

/** A history: one entry per quarter-hour row, in start order. */
export interface History {
  /** UTC ms of each row's start. */
  startMs: number[];
  /** Load, MW (NaN = missing). */
  load: number[];
  /** °C. */
  temperatureC: number[];
  /** Global horizontal irradiance, W/m² (converted from J/m² per hour where needed). */
  ghiWm2: number[];
  /** m/s. */
  windSpeedMs: number[];
}

/**
 * Reads one history file's text.
 * @param name the file's name, for messages
 * @throws {BacktestInputError}
 */
export function parseHistory(
  text: string,
  name: string,
  columns: ColumnMap = {},
  radiationUnit: RadiationUnit = "J/m2",
): History {
  const table = parseTable(text, name);
  const header = table[0];
  const at = (c: HistoryColumn) => {
    const wanted = columns[c] ?? c;
    const i = header.indexOf(wanted);
    if (i < 1) {
      throw new BacktestInputError(
        `${name}: line 1 has no column "${wanted}" (${c}); its columns are ${
          header.slice(1).join(", ")
        } (map another name with --columns ${c}=NAME)`,
      );
    }
    return i;
  };
  const idx = HISTORY_COLUMNS.map(at);
  const scale = radiationUnit === "J/m2" ? 1 / 3600 : 1;
  const out: History = { startMs: [], load: [], temperatureC: [], ghiWm2: [], windSpeedMs: [] };
  const seen = new Map<number, number>();
  for (let r = 1; r < table.length; r++) {
    const row = table[r];
    const line = r + 1;
    const start = parseStart(row[0], name, line, seen);
    const [load, temp, rad, wind] = idx.map((i, c) =>
      cell(row[i], name, line, columns[HISTORY_COLUMNS[c]] ?? HISTORY_COLUMNS[c])
    );
    out.startMs.push(start);
    out.load.push(load);
    out.temperatureC.push(temp);
    out.ghiWm2.push(rad * scale);
    out.windSpeedMs.push(wind);
  }
  return out;
}

const FIELDS = ["load", "temperatureC", "ghiWm2", "windSpeedMs"] as const;

/**
 * Joins histories (several `--history` files) into one in start order.
 * @throws {BacktestInputError} when two files carry the same quarter-hour with different values
 */
export function joinHistories(parts: readonly { history: History; name: string }[]): History {
  const rows: { i: number; h: History; name: string }[] = [];
  for (const { history, name } of parts) {
    history.startMs.forEach((_, i) => rows.push({ i, h: history, name }));
  }
  rows.sort((a, b) => a.h.startMs[a.i] - b.h.startMs[b.i]);
  const out: History = { startMs: [], load: [], temperatureC: [], ghiWm2: [], windSpeedMs: [] };
  for (let r = 0; r < rows.length; r++) {
    const { i, h, name } = rows[r];
    const last = out.startMs.length - 1;
    if (r > 0 && h.startMs[i] === out.startMs[last]) {
      // The same row in two files (OpenSTEF's train and test files share one) is read once.
      const same = FIELDS.every((f) => Object.is(h[f][i], out[f][last]));
      if (same) continue;
      throw new BacktestInputError(
        `${name}: the quarter-hour ${new Date(h.startMs[i]).toISOString()} is also in ${
          rows[r - 1].name
        }, with other values`,
      );
    }
    out.startMs.push(h.startMs[i]);
    out.load.push(h.load[i]);
    out.temperatureC.push(h.temperatureC[i]);
    out.ghiWm2.push(h.ghiWm2[i]);
    out.windSpeedMs.push(h.windSpeedMs[i]);
  }
  return out;
}

/**
 * Reads a reference forecast `start,<value>` (e.g. OpenSTEF's `predicted_load_307.csv`): UTC start
 * → value (MW).
 * @throws {BacktestInputError}
 */
export function parseReference(text: string, name: string): Map<number, number> {
  const table = parseTable(text, name);
  if (table[0].length < 2) {
    throw new BacktestInputError(`${name}: line 1 should name two columns, start and the forecast`);
  }
  const out = new Map<number, number>();
  const seen = new Map<number, number>();
  for (let r = 1; r < table.length; r++) {
    const start = parseStart(table[r][0], name, r + 1, seen);
    out.set(start, cell(table[r][1], name, r + 1, table[0][1] || "column 2"));
  }
  return out;
}

function parseTable(text: string, name: string): string[][] {
  let table: string[][];
  try {
    table = parse(text, {
      skip_empty_lines: true,
      trim: true,
      bom: true,
      relax_column_count: true,
    });
  } catch (err) {
    throw new BacktestInputError(`${name}: not valid CSV: ${(err as Error).message}`);
  }
  if (table.length < 2) throw new BacktestInputError(`${name}: no rows after the header`);
  return table;
}

function parseStart(
  text: string | undefined,
  name: string,
  line: number,
  seen: Map<number, number>,
): number {
  let ms: number;
  try {
    ms = Temporal.Instant.from(text ?? "").epochMilliseconds;
  } catch {
    throw new BacktestInputError(
      `${name}: line ${line}: the start "${
        text ?? ""
      }" is not an instant with an offset (e.g. 2020-08-15 00:00:00+00:00)`,
    );
  }
  if (ms % QH_MS !== 0) {
    throw new BacktestInputError(
      `${name}: line ${line}: the start ${text} is not on a quarter-hour`,
    );
  }
  const before = seen.get(ms);
  if (before !== undefined) {
    throw new BacktestInputError(`${name}: line ${line}: the start ${text} repeats line ${before}`);
  }
  seen.set(ms, line);
  return ms;
}

function cell(text: string | undefined, name: string, line: number, column: string): number {
  if (text === undefined || text === "") return NaN;
  const v = Number(text);
  if (!Number.isFinite(v)) {
    throw new BacktestInputError(`${name}: line ${line}: ${column} "${text}" is not a number`);
  }
  return v;
}
