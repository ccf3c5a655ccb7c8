/**
 * A customer forecast corrected by its recent errors (lib/forecasting/correction.ts,
 * docs/forecasting.md "Customer forecasts corrected"): used only where it was better over the last
 * 28 days, saying which is used, never reading what came after the cut-off.
 */
import assert from "node:assert/strict";
import { addDays, deliveryDay } from "../../lib/domain/delivery_day.ts";
import { correctCustomerForecast, type CustomerValue } from "../../lib/forecasting/correction.ts";
import type { LoadValue } from "../../lib/forecasting/inputs.ts";
import { actualsKnownAt, localDay } from "../../lib/forecasting/local_days.ts";

const gate = (day: string) => deliveryDay(day).gateClosure.epochMilliseconds;

/** The correction of 2026-11-06 at its gate closure. */
const correct6th = (series: { load: LoadValue[]; customer: CustomerValue[] }) =>
  correctCustomerForecast({ cutoffMs: gate("2026-11-06"), days: ["2026-11-06"], ...series })[0];

/** Actuals of `first` … `last` and a customer forecast `f(actual, hour)` of each, received two days ahead. */
function series(first: string, last: string, f: (actual: number, hour: number) => number) {
  const load: LoadValue[] = [];
  const customer: CustomerValue[] = [];
  let n = 0;
  for (let day = first; day <= last; day = addDays(day, 1)) {
    const d = localDay(day);
    for (let i = 0; i < d.length; i++) {
      const startMs = d.startMs + i * 900_000;
      const hour = Math.floor(d.slots[i] / 4);
      const actual = 20 + 10 * Math.sin(2 * Math.PI * hour / 24) + ((n++ * 7919) % 13) / 6;
      load.push({ startMs, value: actual, knownAtMs: actualsKnownAt(startMs) });
      customer.push({ startMs, value: f(actual, hour), receivedAtMs: startMs - 2 * 86_400_000 });
    }
  }
  return { load, customer };
}

Deno.test("customer correction: a forecast 20 % high plus 3 in the afternoon is corrected, and says so", () => {
  const { load, customer } = series(
    "2026-09-01",
    "2026-11-06",
    (a, h) => h >= 12 && h < 18 ? 1.2 * a + 3 : a,
  );
  const d = correct6th({ load, customer });
  assert.equal(d.method, "customer_corrected");
  assert.equal(d.mae!.days, 28);
  assert.ok(d.mae!.corrected < 0.5 * d.mae!.customer, JSON.stringify(d.mae));
  assert.match(
    d.reason,
    /^over 28 of the last 28 days: customer [\d.]+ kW, corrected [\d.]+ kW \(MAE\)$/,
  );
  // Afternoon hours learned ≈ actual = (customer − 3) / 1.2; the others stay as they were.
  assert.ok(Math.abs(d.correction!.scale[14] - 1 / 1.2) < 0.05, `scale ${d.correction!.scale[14]}`);
  assert.ok(Math.abs(d.correction!.scale[3] - 1) < 1e-9 && Math.abs(d.correction!.bias[3]) < 1e-9);
  const truth = load.filter((v) => v.startMs >= localDay("2026-11-06").startMs).map((v) => v.value);
  const err = d.values!.reduce((a, v, i) => a + Math.abs(v - truth[i]), 0) / truth.length;
  assert.ok(err < 0.3, `corrected error ${err}`);
});

Deno.test("customer correction: a forecast the correction cannot beat is used as it is", () => {
  const { load, customer } = series("2026-09-01", "2026-11-06", (a) => a);
  const d = correct6th({ load, customer });
  assert.equal(d.method, "customer");
  assert.equal(d.correction, null);
  const own = customer.filter((v) => v.startMs >= localDay("2026-11-06").startMs).map((v) =>
    v.value
  );
  assert.deepEqual(d.values, own);
});

Deno.test("customer correction: too little history, no forecast, and nothing after the cut-off", () => {
  const short = series("2026-10-25", "2026-11-06", (a) => 2 * a);
  const few = correct6th(short);
  assert.equal(few.method, "customer");
  assert.match(few.reason, /fewer than 14 days to judge$/);
  const { load, customer } = series(
    "2026-09-01",
    "2026-11-06",
    (a, h) => h >= 12 && h < 18 ? 1.2 * a + 3 : a,
  );
  const cutoffMs = gate("2026-11-06");
  const [none] = correctCustomerForecast({ cutoffMs, days: ["2026-11-07"], customer, load });
  assert.equal(none.method, "none");
  assert.equal(none.values, null);
  assert.match(
    none.reason,
    /no customer forecast for every quarter-hour of 2026-11-07 before the cut-off/,
  );
  // A new version and future actuals arriving after the cut-off change nothing.
  const before = correctCustomerForecast({ cutoffMs, days: ["2026-11-06"], customer, load });
  const later = customer.map((v) => ({ ...v, value: v.value * 3, receivedAtMs: cutoffMs }));
  const future = series("2026-11-05", "2026-11-06", (a) => a).load.map((v) => ({
    ...v,
    value: 99,
  }));
  const after = correctCustomerForecast({
    cutoffMs,
    days: ["2026-11-06"],
    customer: [...customer, ...later],
    load: [...load, ...future],
  });
  assert.deepEqual(after, before);
});
