/**
 * The BRP's own intraday trades (docs/settlement.md, "What intraday saved"): a CSV
 * `control_area,start,mwh,eur_mwh` (read with csv-parse) — per trade the control area's EIC, the
 * quarter-hour's start (ISO 8601 with an offset, at a UTC quarter-hour), the energy (MWh, > 0 bought,
 * < 0 sold) and its price (EUR/MWh). Stored per delivery day and control area as the volume and the
 * volume-weighted price per quarter-hour (`KEYS.intradayTrades`, owned here); a file replaces the
 * trades of every day and area it holds (it is the BRP's export of those days). Where given, this
 * price values the energy the intraday versions moved, instead of ID AEP.
 * @module
 */
import { eicProblem } from "../domain/eic.ts";
import { quarterHourCount } from "../domain/delivery_day.ts";
import { retryKv } from "../store/kv.ts";
import { KEYS } from "../store/keys.ts";
import { runsByDay } from "./day_split.ts";
import { csvRows } from "./csv_rows.ts";
import { IssueList } from "./errors.ts";
import { isoMinute, onQuarterHour } from "./series.ts";

/** The header of a trades file. */
export const TRADES_HEADER = "control_area,start,mwh,eur_mwh";

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** One trade as read. */
export interface Trade {
  control_area: string;
  /** UTC ms of the quarter-hour's start. */
  start: number;
  /** MWh, > 0 bought, < 0 sold. */
  mwh: number;
  /** EUR/MWh. */
  eur_mwh: number;
}

/** The trades of one day and area, per quarter-hour. */
export interface StoredTrades {
  day: string;
  control_area: string;
  /** Σ |mwh| per quarter-hour (0: no trade). */
  volume_mwh: number[];
  /** Volume-weighted price per quarter-hour, EUR/MWh (`null`: no trade). */
  price_eur_mwh: (number | null)[];
  updated_at: string;
  source: string;
}

/** True when the first line of `text` is the trades header. */
export function isTradesCsv(text: string): boolean {
  return text.replace(/^\uFEFF/, "").trimStart().split(/\r?\n/, 1)[0].trim() === TRADES_HEADER;
}

/**
 * Reads a trades file.
 * @throws {import("./errors.ts").SettlementInputRefused} a wrong header, or bad rows (each named by
 *   its line): an invalid EIC, a start that is not a quarter-hour with an offset, a number that is
 *   not finite or a volume of 0
 */
export function parseTrades(text: string): Trade[] {
  const data = csvRows(text, TRADES_HEADER, "trades");
  const issues = new IssueList();
  const out: Trade[] = [];
  data.forEach((r, i) => {
    const line = `line ${i + 2}`;
    const bad = (field: string, msg: string) =>
      issues.add(
        ["body", line, field],
        `${line}, ${field}: ${msg}`,
        "value_error.csv",
        r.join(","),
      );
    const [area = "", startText = "", mwhText = "", priceText = ""] = r;
    const problem = eicProblem(area);
    if (problem) return bad("control_area", `${area} is not a valid EIC (${problem})`);
    const start = ISO_WITH_OFFSET.test(startText) ? Date.parse(startText) : NaN;
    if (Number.isNaN(start)) return bad("start", `${startText} is not ISO 8601 with an offset`);
    if (!onQuarterHour(start)) {
      return bad("start", `${startText} (${isoMinute(start)}) is not the start of a quarter-hour`);
    }
    const mwh = Number(mwhText), price = Number(priceText);
    if (mwhText === "" || !Number.isFinite(mwh) || mwh === 0) {
      return bad("mwh", `${mwhText} is not a volume in MWh (a number, not 0)`);
    }
    if (priceText === "" || !Number.isFinite(price)) {
      return bad("eur_mwh", `${priceText} is not a price in EUR/MWh`);
    }
    out.push({ control_area: area, start, mwh, eur_mwh: price });
  });
  issues.throwIfAny();
  return out;
}

/** What storing trades did. */
export interface TradesOutcome {
  trades: number;
  /** `YYYY-MM-DD control_area` of each day and area replaced, ascending. */
  days: string[];
}

/** Stores checked trades: each day and area they hold is replaced as a whole. */
export async function storeTrades(
  kv: Deno.Kv,
  trades: readonly Trade[],
  source: string,
  nowMs: number,
): Promise<TradesOutcome> {
  const groups = new Map<string, { day: string; area: string; rows: [number, Trade][] }>();
  for (const t of trades) {
    const [{ day, first }] = runsByDay(t.start, [0]);
    const k = `${day} ${t.control_area}`;
    const g = groups.get(k) ?? { day, area: t.control_area, rows: [] };
    g.rows.push([first, t]);
    groups.set(k, g);
  }
  const at = new Date(nowMs).toISOString();
  for (const { day, area, rows } of groups.values()) {
    const n = quarterHourCount(day);
    const volume = new Array<number>(n).fill(0), money = new Array<number>(n).fill(0);
    for (const [i, t] of rows) {
      volume[i] += Math.abs(t.mwh);
      money[i] += Math.abs(t.mwh) * t.eur_mwh;
    }
    const rec: StoredTrades = {
      day,
      control_area: area,
      volume_mwh: volume,
      price_eur_mwh: volume.map((v, i) => v > 0 ? money[i] / v : null),
      updated_at: at,
      source,
    };
    await retryKv(`store trades of ${day}`, async () => {
      return (await kv.atomic().set(KEYS.intradayTrades(day, area), rec).commit()).ok
        ? true
        : undefined;
    });
  }
  return { trades: trades.length, days: [...groups.keys()].sort() };
}

/** The trades of a day in an area, `null` when none arrived. */
export async function tradesOfDay(
  kv: Deno.Kv,
  day: string,
  area: string,
): Promise<StoredTrades | null> {
  return (await kv.get<StoredTrades>(KEYS.intradayTrades(day, area))).value;
}
