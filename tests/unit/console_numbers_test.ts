/**
 * The console's number rules (docs/console.md, "Numbers"; issue 36, item 7), in `en` and `de-DE`:
 * significant digits instead of fixed decimals, kW/kWh below 1 MW/MWh, cents where an amount
 * would read 0.00, and parts written with their total so that the parts shown add up to the
 * total shown. The figures of the review (the demo's settlement of 27 Nov 2026) are the cases.
 */
import assert from "node:assert/strict";
import {
  decimalsAddingUp,
  decimalsFor,
  energy,
  energySum,
  energyTable,
  money,
  moneyTable,
  percent,
  power,
  powerTable,
  price,
  tickLabels,
} from "../../lib/console/format.ts";
import { imbalanceText, sourceLines } from "../../lib/console/settlement_texts.ts";

/** Visible text with no-break spaces as spaces. */
const plain = (s: string) => s.replace(/\u00a0/g, " ");

Deno.test("numbers: significant digits, never fewer than the integer digits", () => {
  assert.deepEqual(
    [1.560011, 36.94, 1234.5, 0.019283, 9.996, 0, 100].map((v) => decimalsFor(v)),
    [2, 1, 0, 4, 1, 0, 0],
  );
  assert.equal(plain(energy(1.560011, "en")), "1.56 MWh");
  assert.equal(plain(energy(1.560011, "de-DE")), "1,56 MWh");
  assert.equal(plain(power(1234.5, "en")), "1,235 MW");
  assert.equal(plain(power(1234.5, "de-DE")), "1.235 MW");
  assert.equal(plain(power(36.94, "en")), "36.9 MW");
  assert.equal(plain(power(9.996, "en")), "10.0 MW");
  assert.equal(plain(power(0, "en")), "0 MW");
  assert.equal(power(null, "en"), "—");
  assert.equal(energy(Number.NaN, "en"), "—");
});

Deno.test("numbers: kW and kWh where the MW or MWh figure is below 1 (the review's MAE 0.0 MW)", () => {
  // The demo's Amprion: schedule MAE 0.019283 MW, bias −0.002289 MW (read "0.0 MW" before).
  assert.equal(plain(power(0.019283, "en")), "19.3 kW");
  assert.equal(plain(power(-0.002289, "en")), "-2.29 kW");
  assert.equal(plain(power(-0.002289, "de-DE")), "-2,29 kW");
  // The four sources that all read "0.1 MWh": told apart.
  assert.deepEqual(
    [0.144399, 0.127288, 0.086163, 0.063782].map((v) => plain(energy(v, "en"))),
    ["144 kWh", "127 kWh", "86.2 kWh", "63.8 kWh"],
  );
  assert.equal(plain(energy(0.000412, "de-DE")), "0,412 kWh");
});

Deno.test("numbers: money in EUR with cents; in ct where it would read 0.00; prices; shares", () => {
  assert.equal(plain(money(759.82, "en")), "759.82 EUR");
  assert.equal(plain(money(1030, "de-DE")), "1.030,00 EUR");
  assert.equal(plain(money(-12, "en")), "-12.00 EUR");
  assert.equal(plain(money(0.0031, "en")), "0.310 ct");
  assert.equal(plain(money(-0.0004, "de-DE")), "-0,0400 ct");
  assert.equal(plain(money(0, "en")), "0.00 EUR");
  assert.equal(plain(price(85.2, "de-DE")), "85,20 EUR/MWh");
  assert.equal(plain(percent(5.9385, "en")), "5.94 %");
  assert.equal(plain(percent(62.04, "de-DE")), "62,0 %");
});

Deno.test("numbers: a quarter-hour is balanced only when its imbalance is 0", () => {
  assert.equal(imbalanceText(0, "en"), "balanced");
  // 0.0018 MWh read "balanced" before (0.00 MWh) while it cost money.
  assert.equal(plain(imbalanceText(0.0018, "en")), "1.80 kWh short");
  assert.equal(plain(imbalanceText(-0.75, "de-DE")), "750 kWh long");
  assert.equal(plain(imbalanceText(-2.5, "en")), "2.50 MWh long");
  assert.equal(imbalanceText(null, "en"), "—");
});

Deno.test("numbers: parts shown beside their total add up to it (0.2+0.2+0.3+0.4 is no 1.2)", () => {
  // The demo's long energy of 27 Nov 2026 per area and the day's total (API values).
  const long = [0.203923, 0.213448, 0.297328, 0.440774];
  const total = 1.155473;
  // At one decimal the parts read 0.2+0.2+0.3+0.4 = 1.1 against a total of 1.2, at two
  // 0.20+0.21+0.30+0.44 = 1.15 against 1.16; at three they add up.
  assert.equal(decimalsAddingUp([{ parts: long, total }], 1, 6), 3);
  const s = energySum(long, total, "en");
  assert.deepEqual(s.parts.map(plain), ["0.204 MWh", "0.213 MWh", "0.297 MWh", "0.441 MWh"]);
  assert.equal(plain(s.total), "1.155 MWh");
  const sum = (xs: string[]) =>
    Math.round(xs.reduce((a, x) => a + Number(plain(x).split(" ")[0]), 0) * 1000);
  assert.equal(sum(s.parts), Math.round(Number(plain(s.total).split(" ")[0]) * 1000));
  // Every figure below 1 MWh: the group in kWh.
  const small = energySum([0.25, 0.25, 0.25], 0.75, "de-DE");
  assert.deepEqual([...small.parts, small.total].map(plain), [
    "250 kWh",
    "250 kWh",
    "250 kWh",
    "750 kWh",
  ]);
  // Where no rounding adds up, the service's own precision (1 Wh) is shown.
  const f = energyTable([{ parts: [0.1004, 0.1004, 0.1004], total: 0.3012 }], "en");
  assert.equal(plain(f(0.3012)), "301.2 kWh");
  // Rows and columns of a table share the unit and the decimals: every total keeps three
  // significant digits (0.300).
  const g = energyTable([
    { parts: [1.04, 1.04], total: 2.08 },
    { parts: [0.14, 0.16], total: 0.3 },
  ], "en");
  assert.deepEqual([1.04, 0.14, 0.3].map((v) => plain(g(v))), [
    "1.040 MWh",
    "0.140 MWh",
    "0.300 MWh",
  ]);
});

Deno.test("numbers: money parts and totals; power in a readout's total", () => {
  // The demo's day-ahead costs per area and the total the service answers (sum of rounded areas).
  const f = moneyTable([{ parts: [146.75, 208.17, 188.07, 216.83], total: 759.82 }], "en");
  assert.equal(plain(f(759.82)), "759.82 EUR");
  // Parts of 4 decimals that do not add up at 2 get the decimals they need.
  const g = moneyTable([{ parts: [0.125, 0.125], total: 0.25 }], "de-DE");
  assert.deepEqual([0.125, 0.25].map((v) => plain(g(v))), ["0,125 EUR", "0,250 EUR"]);
  const p = powerTable([{ parts: [0.44, 0.44, 0.44], total: 1.32 }], "en");
  assert.deepEqual([0.44, 1.32].map((v) => plain(p(v))), ["0.44 MW", "1.32 MW"]);
});

Deno.test("numbers: axis labels with the decimals their step needs", () => {
  assert.deepEqual(tickLabels([0, 0.25, 0.5, 0.75], "en"), ["0.00", "0.25", "0.50", "0.75"]);
  assert.deepEqual(tickLabels([-10, 0, 10], "de-DE"), ["-10", "0", "10"]);
  assert.deepEqual(tickLabels([1000, 1500, 2000], "de-DE"), ["1.000", "1.500", "2.000"]);
});

Deno.test("numbers: the sources of the deviation are told apart", () => {
  const lines = sourceLines([
    { source: "G0", locations: 12, mad_mw: 0.001614, abs_deviation_mwh: 0.144399 },
    { source: "L25", locations: 9, mad_mw: 0.001941, abs_deviation_mwh: 0.127288 },
  ], "en").map(plain);
  assert.deepEqual(lines, [
    "profile G0: 144 kWh (53.1 %) over 12 locations, mean 1.61 kW",
    "profile L25: 127 kWh (46.9 %) over 9 locations, mean 1.94 kW",
  ]);
});
