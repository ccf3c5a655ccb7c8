/**
 * The month view's grid (docs/console_after_delivery.md): the cells of
 * `GET /v1/settlement/months/{YYYY-MM}` (`lib/wire/settlement.ts`) arranged as days × areas, with
 * the totals of each day (over its areas) and of each area (over its days). Energy in MWh, money
 * in EUR; a day-ahead cost is `null` when no cell of the sum has one. Pure.
 * @module
 */
import type { MonthSettlement, SettlementTotals } from "../wire/settlement.ts";

/** One cell of the month (`lib/wire/settlement.ts`). */
export type MonthCell = MonthSettlement["cells"][number];

/** Totals of some cells, and whether one of them is provisional. */
export interface CellSum {
  short_mwh: number;
  long_mwh: number;
  cost_eur: number;
  /** Σ of the known day-ahead costs; `null` when none is known. */
  day_ahead_cost_eur: number | null;
  /** Σ of the intraday energy's cost; `null` when a cell with a day-ahead cost has none. */
  intraday_energy_cost_eur: number | null;
  /** Cells summed. */
  cells: number;
  /** Cells with any actual (`actual_quarter_hours` > 0); 0: nothing measured yet. */
  measured: number;
  status: "provisional" | "final";
}

/** One day of the grid: its cells by control area EIC, and its total. */
export interface MonthRow {
  delivery_day: string;
  cells: Record<string, MonthCell>;
  total: CellSum;
}

/** The grid: rows by day (ascending), and the total per area EIC. */
export interface MonthGrid {
  rows: MonthRow[];
  areaTotals: Record<string, CellSum>;
}

/** Sums `cells`; an empty list is 0 MWh, 0 EUR, no day-ahead cost, final. */
export function sumCells(cells: readonly MonthCell[]): CellSum {
  let da: number | null = null;
  const out: CellSum = {
    short_mwh: 0,
    long_mwh: 0,
    cost_eur: 0,
    day_ahead_cost_eur: null,
    intraday_energy_cost_eur: 0,
    cells: cells.length,
    measured: 0,
    status: "final",
  };
  for (const c of cells) {
    out.short_mwh += c.short_mwh;
    out.long_mwh += c.long_mwh;
    out.cost_eur += c.cost_eur;
    if (c.day_ahead_cost_eur !== null) da = (da ?? 0) + c.day_ahead_cost_eur;
    const e = c.intraday_energy_cost_eur;
    if (c.day_ahead_cost_eur !== null) {
      out.intraday_energy_cost_eur = e === null || out.intraday_energy_cost_eur === null
        ? null
        : out.intraday_energy_cost_eur + e;
    }
    if (c.status === "provisional") out.status = "provisional";
    if (c.actual_quarter_hours > 0) out.measured++;
  }
  out.day_ahead_cost_eur = da;
  if (da === null) out.intraday_energy_cost_eur = null;
  return out;
}

/** The sum as the totals of a sentence (`totalsWords`). */
export function asTotals(s: CellSum): SettlementTotals {
  const avoided = s.day_ahead_cost_eur === null ? null : s.day_ahead_cost_eur - s.cost_eur;
  const energy = s.intraday_energy_cost_eur;
  return {
    short_mwh: s.short_mwh,
    long_mwh: s.long_mwh,
    cost_eur: s.cost_eur,
    day_ahead_cost_eur: s.day_ahead_cost_eur,
    imbalance_avoided_eur: avoided,
    intraday_energy_cost_eur: energy,
    intraday_saving_eur: avoided === null || energy === null ? null : avoided - energy,
    post_delivery_moved_eur: null,
  };
}

/**
 * Arranges the month's cells as days × areas.
 * @param before a Berlin date `YYYY-MM-DD`: only days before it (after delivery), e.g. today;
 *   the service lists every day with a sent schedule, today's and tomorrow's too
 */
export function monthGrid(m: MonthSettlement, before?: string): MonthGrid {
  const byDay = new Map<string, MonthCell[]>();
  for (const c of m.cells) {
    if (before !== undefined && c.delivery_day >= before) continue;
    const list = byDay.get(c.delivery_day) ?? [];
    list.push(c);
    byDay.set(c.delivery_day, list);
  }
  const rows = [...byDay.keys()].sort().map((day) => {
    const list = byDay.get(day)!;
    return {
      delivery_day: day,
      cells: Object.fromEntries(list.map((c) => [c.control_area, c])),
      total: sumCells(list),
    };
  });
  const areaTotals = Object.fromEntries(
    m.areas.map((a) => [
      a.control_area,
      sumCells(
        m.cells.filter((c) =>
          c.control_area === a.control_area && (before === undefined || c.delivery_day < before)
        ),
      ),
    ]),
  );
  return { rows, areaTotals };
}

/** `YYYY-MM` plus `n` months. */
export function addMonths(month: string, n: number): string {
  const [y, m] = month.split("-").map(Number);
  const d = new Date(Date.UTC(y, m - 1 + n, 1));
  return d.toISOString().slice(0, 7);
}

/** Parts and their total, as the formats of lib/console/format.ts take them. */
type Group = { parts: number[]; total: number };

/**
 * The figures of a month's table that are added up on screen, one group per total: each day over
 * its areas, each area over its days, the month over areas and over days; short and long energy
 * and the cost apart.
 */
export function monthGroups(
  grid: MonthGrid,
  areas: readonly string[],
  monthTotals: SettlementTotals,
): Record<"short" | "long" | "cost", Group[]> {
  const short: Group[] = [];
  const long: Group[] = [];
  const cost: Group[] = [];
  const cell = (r: MonthRow, a: string) => r.cells[a];
  const add = (
    parts: readonly (Pick<CellSum, "short_mwh" | "long_mwh" | "cost_eur"> | undefined)[],
    total: Pick<CellSum, "short_mwh" | "long_mwh" | "cost_eur">,
  ) => {
    const ps = parts.filter((p) => p !== undefined);
    short.push({ parts: ps.map((p) => p.short_mwh), total: total.short_mwh });
    long.push({ parts: ps.map((p) => p.long_mwh), total: total.long_mwh });
    cost.push({ parts: ps.map((p) => p.cost_eur), total: total.cost_eur });
  };
  // Each day over its areas, each area over its days, and the month over areas and over days.
  for (const r of grid.rows) add(areas.map((a) => cell(r, a)), r.total);
  for (const a of areas) {
    const t = grid.areaTotals[a];
    if (t) add(grid.rows.map((r) => cell(r, a)), t);
  }
  add(areas.map((a) => grid.areaTotals[a]), monthTotals);
  add(grid.rows.map((r) => r.total), monthTotals);
  return { short, long, cost };
}

/**
 * The month's status: `final` only once the month is over (`today`, Berlin `YYYY-MM-DD`, is in a
 * later month) and every day of it with a settlement is final; `provisional` before — one settled
 * day does not make a month final (docs/console_after_delivery.md).
 */
export function monthStatus(
  month: string,
  cells: readonly MonthCell[],
  today: string,
): "provisional" | "final" {
  if (today.slice(0, 7) <= month || cells.length === 0) return "provisional";
  return cells.every((c) => c.status === "final") ? "final" : "provisional";
}
