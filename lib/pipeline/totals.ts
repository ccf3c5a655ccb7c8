/**
 * Energy and peak of an open position (docs/pipeline.md, "Aggregation"): from MW per quarter-hour
 * to MWh, the purchase part (the positive quarter-hours, consumption ahead of generation) and the
 * sale part (the magnitude of the negative ones), and the peak. Plain arithmetic, so the console
 * shows exactly what the API says.
 * @module
 */

/** Hours in one quarter-hour position (PT15M). */
const QH_HOURS = 0.25;

/** Totals of one control area over one delivery day. */
export interface AreaTotals {
  /** Σ of the positive quarter-hours × 0.25 h, MWh. */
  purchase_mwh: number;
  /** Σ of the magnitudes of the negative quarter-hours × 0.25 h, MWh. */
  sale_mwh: number;
  /** The quarter-hour of the largest magnitude, signed, MW. */
  peak_mw: number;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** Totals of one area's quarter-hour values (MW). */
export function areaTotals(mw: readonly number[]): AreaTotals {
  let purchase = 0, sale = 0, peak = 0;
  for (const v of mw) {
    if (v > 0) purchase += v;
    else sale -= v;
    if (Math.abs(v) > Math.abs(peak)) peak = v;
  }
  return {
    purchase_mwh: round3(purchase * QH_HOURS),
    sale_mwh: round3(sale * QH_HOURS),
    peak_mw: round3(peak),
  };
}
