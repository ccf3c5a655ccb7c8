/**
 * The backtest's figures (docs/forecasting.md, "The backtest"), all over the same quarter-hours:
 *
 * - MAE: mean |forecast − actual|, MW;
 * - rMAE: MAE ÷ (P99 − P1) of the actual load on those quarter-hours — OpenSTEF's normalisation
 *   (percentiles interpolated linearly between order statistics, as numpy's default);
 * - bias: mean (forecast − actual), MW: positive = forecast too high;
 * - imbalance energy: Σ |forecast − actual| × 0.25 h, MWh — what the error would cost in balancing
 *   energy if the forecast were the schedule.
 * @module
 */

/** The figures of one forecast against the actuals. */
export interface Figures {
  /** MW. */
  mae: number;
  /** MAE ÷ (P99 − P1) of the actual load. */
  rmae: number;
  /** MW, forecast − actual. */
  bias: number;
  /** MWh. */
  imbalanceMwh: number;
}

/**
 * Linear-interpolation percentile (numpy's default, "type 7") of `values`, `q` in 0…100.
 * @throws {RangeError} for no values
 */
export function percentile(values: readonly number[], q: number): number {
  if (values.length === 0) throw new RangeError("no values");
  const s = [...values].sort((a, b) => a - b);
  const h = (s.length - 1) * q / 100;
  const lo = Math.floor(h);
  return s[lo] + (h - lo) * ((s[Math.min(lo + 1, s.length - 1)]) - s[lo]);
}

/**
 * The figures of `forecast` against `actual` (same length, all finite).
 * @param range P99 − P1 of the actuals (the same for every forecast compared)
 */
export function figures(
  forecast: readonly number[],
  actual: readonly number[],
  range: number,
): Figures {
  let abs = 0, sum = 0;
  for (let i = 0; i < actual.length; i++) {
    const e = forecast[i] - actual[i];
    abs += Math.abs(e);
    sum += e;
  }
  const n = actual.length;
  const mae = n ? abs / n : NaN;
  return { mae, rmae: mae / range, bias: n ? sum / n : NaN, imbalanceMwh: abs * 0.25 };
}
