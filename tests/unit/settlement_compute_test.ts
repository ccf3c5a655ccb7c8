/**
 * The settlement arithmetic (docs/settlement.md, "Computation") against a hand computation:
 * imbalance = (actual − schedule) × 0.25 h, the price of the direction, cost = imbalance × price,
 * `null` where an input is missing, totals, accuracy, status.
 */
import assert from "node:assert/strict";
import {
  type AreaInputs,
  dayTotals,
  settleArea,
  settleQuarterHour,
  sumTotals,
} from "../../lib/settlement/compute.ts";
import type { SettlementTotals } from "../../lib/wire/settlement.ts";
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
    before_correction: null,
    market_location_mw: [12, 8, 10, 14],
    market_location_quality: PLAIN_QUALITY,
    balancing_group_mw: null,
    balancing_group_quality: null,
    price_short: [100, 50, 70, -20],
    price_long: [90, 40, 70, -30],
    price_source: null,
    id_aep: [60, 60, 60, 60],
    trade_price: null,
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
    imbalance_avoided_eur: 95,
    // The intraday versions bought (10 − 8) × 0.25 = 0.5 MWh a quarter-hour at ID AEP 60: 120 EUR.
    intraday_energy_cost_eur: 120,
    intraday_saving_eur: -25,
    post_delivery_moved_eur: null,
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
  const part = (o: Partial<SettlementTotals>): SettlementTotals => ({
    short_mwh: 1,
    long_mwh: 2,
    cost_eur: 3,
    day_ahead_cost_eur: 4,
    imbalance_avoided_eur: 1,
    intraday_energy_cost_eur: 0.5,
    intraday_saving_eur: 0.5,
    post_delivery_moved_eur: null,
    ...o,
  });
  assert.deepEqual(sumTotals([part({}), part({ cost_eur: -1, day_ahead_cost_eur: 2 })]), {
    short_mwh: 2,
    long_mwh: 4,
    cost_eur: 2,
    day_ahead_cost_eur: 6,
    imbalance_avoided_eur: 4,
    intraday_energy_cost_eur: 1,
    intraday_saving_eur: 3,
    post_delivery_moved_eur: null,
  });
  const t = sumTotals([part({}), part({ day_ahead_cost_eur: null })]);
  assert.deepEqual(
    [t.day_ahead_cost_eur, t.imbalance_avoided_eur, t.intraday_saving_eur],
    [null, null, null],
  );
  const u = sumTotals([part({}), part({ intraday_energy_cost_eur: null })]);
  assert.deepEqual([u.imbalance_avoided_eur, u.intraday_saving_eur], [2, null]);
});

Deno.test("settlement: the intraday energy at own trade prices where given, else ID AEP; null without", () => {
  // Schedule 10 MW, day-ahead 8 MW: 0.5 MWh bought each quarter-hour. Own trades at 40 in QH 1.
  const a = settleArea(inputs({ trade_price: [null, 40, null, null] }));
  assert.deepEqual(a.intraday_mwh, [0.5, 0.5, 0.5, 0.5]);
  assert.deepEqual(a.intraday_price_eur_mwh, [60, 40, 60, 60]);
  assert.deepEqual(a.intraday_price_source, ["id_aep", "trades", "id_aep", "id_aep"]);
  assert.deepEqual(a.intraday_cost_eur, [30, 20, 30, 30]);
  assert.deepEqual(
    [
      a.totals.imbalance_avoided_eur,
      a.totals.intraday_energy_cost_eur,
      a.totals.intraday_saving_eur,
    ],
    [95, 110, -15],
  );
  // ID AEP missing where energy moved: the net figure is unknown, the gross one stays.
  const b = settleArea(inputs({ id_aep: [60, null, 60, 60] }));
  assert.deepEqual(b.intraday_cost_eur, [30, null, 30, 30]);
  assert.deepEqual(
    [
      b.totals.imbalance_avoided_eur,
      b.totals.intraday_energy_cost_eur,
      b.totals.intraday_saving_eur,
    ],
    [95, null, null],
  );
  // No intraday change in a quarter-hour: it costs nothing, with or without a price.
  const c = settleArea(inputs({ schedule: { version: 1, mw: [8, 8, 8, 8] }, id_aep: null }));
  assert.deepEqual(c.intraday_cost_eur, [0, 0, 0, 0]);
  assert.equal(c.totals.intraday_saving_eur, 0);
  // A post-delivery correction to the actual (12, 8, 10, 14) after v3: its imbalance moved to the
  // counterparty is its own figure; what intraday saved is measured on v3, as delivered.
  const d = settleArea(inputs({
    schedule: { version: 4, mw: [12, 8, 10, 14] },
    before_correction: { version: 3, mw: [10, 10, 10, 10] },
  }));
  assert.deepEqual(d.cost_eur, [0, 0, 0, 0]);
  assert.deepEqual(
    [d.totals.cost_eur, d.totals.post_delivery_moved_eur, d.totals.imbalance_avoided_eur],
    [0, 10, 95],
  );
  assert.deepEqual(d.intraday_mwh, [0.5, 0.5, 0.5, 0.5]);
  assert.equal(d.totals.intraday_saving_eur, -25);
});

Deno.test("the day's totals are summed before rounding: 0.004 + 0.004 EUR is 0.01, not 0.00", () => {
  // One quarter-hour short by 0.25 MWh at 0.016 EUR/MWh: 0.004 EUR in each of two areas.
  const area = (control_area: string) =>
    settleArea(inputs({
      control_area,
      market_location_mw: [11, 10, 10, 10],
      price_short: [0.016, 0, 0, 0],
      price_long: [0, 0, 0, 0],
      day_ahead: null,
    }));
  const a = area("10YDE-RWENET---I"), b = area("10YDE-EON------1");
  assert.deepEqual([a.totals.cost_eur, b.totals.cost_eur], [0, 0]);
  assert.equal(sumTotals([a.totals, b.totals]).cost_eur, 0);
  assert.equal(dayTotals([a, b]).cost_eur, 0.01);
});
