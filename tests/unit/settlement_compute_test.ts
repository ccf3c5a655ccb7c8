/**
 * The settlement arithmetic (docs/settlement.md, "Computation") against a hand computation:
 * imbalance = (actual − schedule) × 0.25 h, the price of the direction, cost = imbalance × price,
 * `null` where an input is missing, totals, accuracy, status.
 */
import assert from "node:assert/strict";
import {
  type AreaInputs,
  settleArea,
  settleQuarterHour,
  sumTotals,
} from "../../lib/settlement/compute.ts";
import { PLAIN_QUALITY } from "../../lib/settlement/quality_tally.ts";

const QH = [
  "2027-03-01T00:00:00Z",
  "2027-03-01T00:15:00Z",
  "2027-03-01T00:30:00Z",
  "2027-03-01T00:45:00Z",
];

function inputs(over: Partial<AreaInputs> = {}): AreaInputs {
  return {
    control_area: "10YDE-RWENET---I",
    name: "Amprion",
    quarter_hours: QH,
    schedule: { version: 3, mw: [10, 10, 10, 10] },
    day_ahead: { version: 1, mw: [8, 8, 8, 8] },
    market_location_mw: [12, 8, 10, 14],
    market_location_quality: PLAIN_QUALITY,
    balancing_group_mw: null,
    balancing_group_quality: null,
    price_short: [100, 50, 70, -20],
    price_long: [90, 40, 70, -30],
    price_source: null,
    locations: { metered: 2, profile_settled: 5, missing: 0 },
    by_source: [],
    ...over,
  };
}

Deno.test("settlement: imbalance, direction price and cost per quarter-hour, by hand", () => {
  const a = settleArea(inputs());
  // QH0: (12 − 10) × 0.25 = +0.5 MWh short × 100 = 50 EUR
  // QH1: (8 − 10) × 0.25 = −0.5 MWh long × 40 (ueberdeckt) = −20 EUR
  // QH2: 0 MWh, price 70, cost 0
  // QH3: (14 − 10) × 0.25 = +1 MWh short × −20 = −20 EUR (a negative price pays the short BRP)
  assert.deepEqual(a.imbalance_mwh, [0.5, -0.5, 0, 1]);
  assert.deepEqual(a.price_eur_mwh, [100, 40, 70, -20]);
  assert.deepEqual(a.cost_eur, [50, -20, 0, -20]);
  // Day-ahead alone (8 MW): +1 × 100, 0 × 50 → 0, +0.5 × 70, +1.5 × −20
  assert.deepEqual(a.day_ahead_cost_eur, [100, 0, 35, -30]);
  assert.deepEqual(a.totals, {
    short_mwh: 1.5,
    long_mwh: 0.5,
    cost_eur: 10,
    day_ahead_cost_eur: 105,
    intraday_saving_eur: 95,
  });
  // |s − a| = 2, 2, 0, 4 → MAE 2; bias (s − a) = −2, 2, 0, −4 → −1; nMAE 8 / 44 = 18.1818 %
  assert.deepEqual(a.accuracy.schedule, { mae_mw: 2, bias_mw: -1, nmae_pct: 18.1818 });
  assert.deepEqual(a.accuracy.worst.map((w) => w.index), [3, 0, 1]);
  assert.equal(a.completeness.status, "final");
  assert.equal(a.completeness.priced_quarter_hours, 4);
});

Deno.test("settlement: missing actual or price is null, never zero; provisional", () => {
  const a = settleArea(
    inputs({ market_location_mw: [12, null, 10, 14], price_short: [100, 50, null, -20] }),
  );
  assert.deepEqual(a.imbalance_mwh, [0.5, null, 0, 1]);
  assert.deepEqual(a.cost_eur, [50, null, null, -20]);
  assert.equal(a.totals.cost_eur, 30);
  assert.equal(a.completeness.priced_quarter_hours, 3);
  assert.equal(a.completeness.status, "provisional");
  const m = settleArea(inputs({ locations: { metered: 1, profile_settled: 5, missing: 1 } }));
  assert.equal(m.completeness.status, "provisional");
  const none = settleArea(inputs({ schedule: null, day_ahead: null }));
  assert.deepEqual(none.imbalance_mwh, [null, null, null, null]);
  assert.equal(none.totals.day_ahead_cost_eur, null);
  assert.equal(none.completeness.status, "provisional");
});

Deno.test("settlement: the balancing-group sum is the actual where given, our own sum beside it", () => {
  const a = settleArea(inputs({ balancing_group_mw: [11, 11, 11, 11] }));
  assert.equal(a.actual_source, "balancing_group_sum");
  assert.deepEqual(a.actual_mw, [11, 11, 11, 11]);
  assert.deepEqual(a.market_location_actual_mw, [12, 8, 10, 14]);
  assert.deepEqual(a.imbalance_mwh, [0.25, 0.25, 0.25, 0.25]);
});

Deno.test("settlement: quarter-hour rule and totals over areas", () => {
  assert.deepEqual(settleQuarterHour(5, 6, 10, 20), { imbalance: -0.25, price: 20, cost: -5 });
  assert.deepEqual(settleQuarterHour(null, 6, 10, 20), {
    imbalance: null,
    price: null,
    cost: null,
  });
  const t = sumTotals([
    { short_mwh: 1, long_mwh: 2, cost_eur: 3, day_ahead_cost_eur: 4, intraday_saving_eur: 1 },
    {
      short_mwh: 1,
      long_mwh: 0,
      cost_eur: -1,
      day_ahead_cost_eur: null,
      intraday_saving_eur: null,
    },
  ]);
  assert.deepEqual(t, {
    short_mwh: 2,
    long_mwh: 2,
    cost_eur: 2,
    day_ahead_cost_eur: null,
    intraday_saving_eur: null,
  });
});
