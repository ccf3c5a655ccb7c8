/**
 * Energy and peak of an open position (docs/pipeline.md, "Aggregation"): purchase = the positive
 * quarter-hours, sale = the magnitude of the negative ones, × 0.25 h; the peak signed.
 */
import assert from "node:assert/strict";
import { areaTotals } from "../../lib/pipeline/totals.ts";

Deno.test("areaTotals: MWh of the purchase and sale parts, the signed peak", () => {
  // 92 quarter-hours (spring clock change): 46 at +4 MW, 46 at −2 MW.
  const mw = [...Array(46).fill(4), ...Array(46).fill(-2)];
  assert.deepEqual(areaTotals(mw), { purchase_mwh: 46, sale_mwh: 23, peak_mw: 4 });
  assert.deepEqual(areaTotals([1.5, -7.25, 3]), {
    purchase_mwh: 1.125,
    sale_mwh: 1.813,
    peak_mw: -7.25,
  });
  assert.deepEqual(areaTotals([]), { purchase_mwh: 0, sale_mwh: 0, peak_mw: 0 });
});
