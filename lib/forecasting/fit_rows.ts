/**
 * The rows a fit and a prediction read (docs/forecasting.md): one reused matrix for the fits, and
 * the columns a fit drops (the weather, for `learned_without_weather`) held at 0.
 * @module
 */
import { type DayRows, dayRowsInto, type FeatureContext, type FeatureSet } from "./features.ts";

/**
 * The fit's matrices, kept between fits and grown as needed: a refresh of 10,000 locations makes
 * some 40,000 fits, and fresh matrices of 2,000 × 17 each cost as much time in the garbage
 * collector as the fits in their sums. Zeroed for each use (the rows a fit does not write — days
 * whose lag falls before the view — read as 0, not ok).
 */
let kept: { x: Float64Array; y: Float64Array; w: Float64Array; use: Uint8Array } | null = null;
export function scratch(n: number, p: number) {
  if (!kept || kept.x.length < n * p || kept.y.length < n) {
    kept = {
      x: new Float64Array(Math.max(n * p, kept?.x.length ?? 0)),
      y: new Float64Array(Math.max(n, kept?.y.length ?? 0)),
      w: new Float64Array(Math.max(n, kept?.w.length ?? 0)),
      use: new Uint8Array(Math.max(n, kept?.use.length ?? 0)),
    };
  }
  const m = {
    x: kept.x.subarray(0, n * p),
    y: kept.y.subarray(0, n),
    w: kept.w.subarray(0, n),
    use: kept.use.subarray(0, n),
  };
  m.x.fill(0);
  m.use.fill(0);
  return m;
}

/** Column indices of the features `without` names (by prefix). */
export const dropped = (set: FeatureSet, without: readonly string[]) =>
  set.names.flatMap((name, j) => without.some((w) => name.startsWith(w)) ? [j] : []);

/**
 * The rows of day `k` with the dropped columns held at 0 (constant: the fit gives them 0), in a
 * matrix kept for the next call: read them before asking for another day's.
 */
export function rowsWithout(
  ctx: FeatureContext,
  set: FeatureSet,
  k: number,
  drop: readonly number[],
): DayRows {
  const len = ctx.view.days[k].length, p = set.names.length;
  if (!predictionKept || predictionKept.values.length < len * p || predictionKept.ok.length < len) {
    predictionKept = { values: new Float64Array(len * p * 2), ok: new Uint8Array(len * 2) };
  }
  const rows = {
    values: predictionKept.values.subarray(0, len * p),
    ok: predictionKept.ok.subarray(0, len),
  };
  rows.values.fill(0);
  rows.ok.fill(0);
  dayRowsInto(ctx, set, k, rows, 0);
  dropColumns(rows, p, drop, 0, len);
  return rows;
}
/** The prediction's rows, kept between days as the fit's matrices are ({@link scratch}). */
let predictionKept: DayRows | null = null;

/** Holds the `drop` columns of rows `from` … `from + count − 1` at 0, and judges the rows again. */
export function dropColumns(
  rows: { values: Float64Array; ok: Uint8Array },
  p: number,
  drop: readonly number[],
  from: number,
  count: number,
): void {
  if (drop.length === 0) return;
  for (let i = from; i < from + count; i++) {
    let good = 1;
    for (let j = 0; j < p; j++) {
      if (drop.includes(j)) rows.values[i * p + j] = 0;
      else if (Number.isNaN(rows.values[i * p + j])) good = 0;
    }
    rows.ok[i] = good;
  }
}
