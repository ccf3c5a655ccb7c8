/**
 * Customer forecasts corrected in the service (docs/forecasting.md, "Customer forecasts corrected",
 * "In the service"; issue 33 item 3): a metered location whose customer forecast is 20 % high
 * every day gets it corrected — stored as `customer_corrected`, counted so in the open position,
 * the model record giving both errors — while a location whose forecast the correction cannot
 * beat (an exact one) keeps it as sent (nothing stored, the customer's values in the open position). A newer
 * customer forecast voids the correction until the next forecast step. Synthetic load (the real
 * set has no customer forecast), each value delivered when a DSO and a customer would: actuals at
 * 06:00 Berlin the next day, a day's customer forecast an hour before its gate closure.
 */
import assert from "node:assert/strict";
import { actualsKnownAt, localDay, localTimeOn } from "../../lib/forecasting/local_days.ts";
import { addDays } from "../../lib/domain/delivery_day.ts";
import { aggregateDay } from "../../lib/pipeline/aggregate.ts";
import { readModel } from "../../lib/pipeline/forecast_models.ts";
import { ingestForecasts, learnedForecastsOf } from "../../lib/pipeline/forecasts.ts";
import { generateForecasts } from "../../lib/pipeline/generate.ts";
import { putMarketLocation } from "../../lib/pipeline/market_locations.ts";
import { storeActuals } from "../../lib/settlement/actuals_store.ts";
import { AREA, maloOf } from "../support/learned.ts";
import { tempDir } from "../support/temp.ts";

const HIGH = maloOf("5200000001"), FAIR = maloOf("5200000002");
const TODAY = "2026-11-10", TOMORROW = "2026-11-11";
const NOW = localTimeOn(TODAY, "11:30");

/** The true load, kW: a daily curve, lower at weekends, with a deterministic wobble. */
function load(day: string, i: number, slot: number): number {
  const wd = localDay(day).weekday;
  const wobble = Math.sin(i * 12.9898 + wd * 78.233) * 8;
  return (wd >= 6 ? 70 : 100) + 60 * Math.sin(Math.PI * slot / 96) ** 2 + wobble;
}

Deno.test("customer forecasts corrected: where it was better over 28 days, labelled and counted; kept as sent where not", async () => {
  await using dir = await tempDir("bridge-correction-");
  const kv = await Deno.openKv(`${dir.path}/t.kv`);
  try {
    for (const id of [HIGH, FAIR]) {
      await putMarketLocation(kv, id, { control_area: AREA, direction: "consumption" }, 0);
    }
    for (let day = "2026-09-01"; day <= TOMORROW; day = addDays(day, 1)) {
      const d = localDay(day);
      const truth = Array.from(d.slots, (slot, i) => load(day, i, slot));
      if (day < TODAY) {
        await storeActuals(
          kv,
          [HIGH, FAIR].map((id) => ({
            owner: { kind: "market_location" as const, malo_id: id },
            start: d.startMs,
            kwh: truth.map((v) => v / 4),
            where: day,
          })),
          "test",
          actualsKnownAt(d.startMs),
        );
      }
      // The customer's forecasts, an hour before the day's gate closure: 20 % high, and exact
      // (nothing a correction could improve).
      await ingestForecasts(
        kv,
        [
          { malo_id: HIGH, delivery_day: day, values: truth.map((v) => v * 1.2) },
          {
            malo_id: FAIR,
            delivery_day: day,
            values: truth.map((v) => v),
          },
        ],
        "acme",
        localTimeOn(addDays(day, -1), "11:00"),
      );
    }
    const step = {
      by: "test",
      region: "DE",
      learned: { horizonDays: 2, gateClosureLocalTime: "12:00" },
    };
    await generateForecasts(kv, TOMORROW, { ...step, nowMs: NOW });
    const [high, fair] = await learnedForecastsOf(kv, TOMORROW, [HIGH, FAIR]);
    assert.equal(high?.method, "customer_corrected");
    assert.match(
      high!.reason,
      /^over 2[0-9] of the last 28 days: customer [\d.]+ kW, corrected [\d.]+ kW \(MAE\)$/,
    );
    const d = localDay(TOMORROW);
    const err = (f: number[]) =>
      f.reduce((s, v, i) => s + Math.abs(v - load(TOMORROW, i, d.slots[i])), 0) / f.length;
    assert.ok(
      err(high!.values) <
        0.3 * err(d.slots.map((s, i) => load(TOMORROW, i, s) * 1.2) as unknown as number[]),
    );
    assert.equal(fair, null, "the fair forecast stays as sent: nothing stored");
    const hm = await readModel(kv, HIGH), fm = await readModel(kv, FAIR);
    assert.equal(hm?.days[TOMORROW].method, "customer_corrected");
    assert.ok(
      hm!.correction!.used && hm!.correction!.corrected_mae_kw < hm!.correction!.customer_mae_kw,
    );
    assert.equal(fm?.days[TOMORROW].method, "customer");
    assert.equal(fm?.correction?.used, false);
    // The open position: the corrected values for the one, the customer's for the other.
    const agg = await aggregateDay(kv, TOMORROW, {
      by: "t",
      nowMs: NOW,
      activeAreas: [AREA],
      region: "DE",
    });
    const fairValues = Array.from(
      d.slots,
      (_, i) => load(TOMORROW, i, d.slots[i]),
    );
    agg.areas[AREA].forEach((mw, i) =>
      assert.equal(
        mw,
        Math.round((high!.values[i] + fairValues[i]) * 1000) / 1e6,
        `quarter-hour ${i}`,
      )
    );
    // A newer customer forecast: the correction no longer stands until the next forecast step.
    const newer = Array.from(d.slots, (s, i) => load(TOMORROW, i, s) * 1.1);
    await ingestForecasts(
      kv,
      [{ malo_id: HIGH, delivery_day: TOMORROW, values: newer }],
      "acme",
      NOW + 60_000,
    );
    const agg2 = await aggregateDay(kv, TOMORROW, {
      by: "t",
      nowMs: NOW + 60_000,
      activeAreas: [AREA],
      region: "DE",
    });
    agg2.areas[AREA].forEach((mw, i) =>
      assert.equal(mw, Math.round((newer[i] + fairValues[i]) * 1000) / 1e6)
    );
    await generateForecasts(kv, TOMORROW, { ...step, nowMs: NOW + 120_000 });
    const [again] = await learnedForecastsOf(kv, TOMORROW, [HIGH]);
    assert.equal(again?.customer_received_at, new Date(NOW + 60_000).toISOString());
  } finally {
    kv.close();
  }
});
