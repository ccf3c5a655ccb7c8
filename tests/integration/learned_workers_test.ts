/**
 * The learned refresh in workers (docs/forecasting.md, "In the service", "Two threads"): with the
 * store's file given, the metered locations are refitted in two workers with their own KV handle,
 * each taking batches of 150 until none is left; the forecasts, model records and summary are the
 * same as in one thread.
 * 320 metered locations (three batches) with 16 days of synthetic actuals each, on two stores
 * seeded alike. Real KV on temp files.
 */
import assert from "node:assert/strict";
import { addDays } from "../../lib/domain/delivery_day.ts";
import { actualsKnownAt, localDay, localTimeOn } from "../../lib/forecasting/local_days.ts";
import { readModel, readModelsSummary } from "../../lib/pipeline/forecast_models.ts";
import { learnedForecastsOf } from "../../lib/pipeline/forecasts.ts";
import { generateForecasts } from "../../lib/pipeline/generate.ts";
import { putMarketLocations } from "../../lib/pipeline/market_locations.ts";
import { storeActuals } from "../../lib/settlement/actuals_store.ts";
import { AREA, maloOf } from "../support/learned.ts";
import { tempDir } from "../support/temp.ts";

const N = 320;
const TODAY = "2026-11-20", TOMORROW = "2026-11-21";
const NOW = localTimeOn(TODAY, "07:00");
const ids = Array.from({ length: N }, (_, i) => maloOf(`53${String(i).padStart(8, "0")}`));

async function seeded(path: string) {
  const kv = await Deno.openKv(path);
  await putMarketLocations(
    kv,
    ids.map((malo_id) => ({ malo_id, control_area: AREA, direction: "consumption" as const })),
    0,
  );
  for (let day = addDays(TODAY, -16); day < TODAY; day = addDays(day, 1)) {
    const d = localDay(day);
    await storeActuals(
      kv,
      ids.map((malo_id, k) => ({
        owner: { kind: "market_location" as const, malo_id },
        start: d.startMs,
        kwh: Array.from(
          d.slots,
          (slot, i) => (20 + k % 13 + 10 * Math.sin(slot / 15) + (i % 5)) / 4,
        ),
        where: day,
      })),
      "test",
      actualsKnownAt(d.startMs),
    );
  }
  return kv;
}

Deno.test("learned refresh in workers: the same forecasts, records and summary as in one thread", async () => {
  await using dir = await tempDir("bridge-learned-workers-");
  const [a, b] = [`${dir.path}/a.kv`, `${dir.path}/b.kv`];
  const kvA = await seeded(a), kvB = await seeded(b);
  try {
    const step = (kvPath?: string) => ({
      by: "test",
      nowMs: NOW,
      region: "DE",
      // Every past day replayed in both (the budget is wall-clock time: a loaded machine would
      // otherwise replay fewer in one than in the other).
      learned: { horizonDays: 2, gateClosureLocalTime: "12:00", kvPath, replayBudgetMs: 600_000 },
    });
    const ra = await generateForecasts(kvA, TOMORROW, step(a)); // workers
    const rb = await generateForecasts(kvB, TOMORROW, step()); // this thread
    assert.equal(ra.learned_refresh?.computed, N);
    assert.deepEqual(ra.learned_refresh, rb.learned_refresh);
    const [fa, fb] = await Promise.all([
      learnedForecastsOf(kvA, TOMORROW, ids),
      learnedForecastsOf(kvB, TOMORROW, ids),
    ]);
    assert.ok(fa.every((f) => f?.method === "learned_without_weather"));
    assert.deepEqual(fa.map((f) => f!.values), fb.map((f) => f!.values));
    const [ma, mb] = await Promise.all([readModel(kvA, ids[N - 1]), readModel(kvB, ids[N - 1])]);
    assert.deepEqual(ma, mb);
    const [sa, sb] = await Promise.all([readModelsSummary(kvA), readModelsSummary(kvB)]);
    assert.equal(sa?.locations, N);
    assert.deepEqual(sa, sb);
  } finally {
    kvA.close();
    kvB.close();
  }
});

Deno.test("learned refresh in workers: a location that cannot be forecast fails the refresh in words, as in one thread", async () => {
  await using dir = await tempDir("bridge-learned-workers-fail-");
  const [a, b] = [`${dir.path}/a.kv`, `${dir.path}/b.kv`];
  const kvA = await seeded(a), kvB = await seeded(b);
  try {
    // A holiday region date-holidays does not know, written past the API's validation (a record
    // of an older version): the model cannot tell its working days.
    for (const kv of [kvA, kvB]) {
      const key = ["market_locations", ids[200]];
      const rec = (await kv.get<Record<string, unknown>>(key)).value!;
      await kv.set(key, { ...rec, holiday_region: "ZZ" });
    }
    const step = (kvPath?: string) => ({
      by: "test",
      nowMs: NOW,
      region: "DE",
      learned: { horizonDays: 2, gateClosureLocalTime: "12:00", kvPath, replayBudgetMs: 0 },
    });
    const failure = async (p: Promise<unknown>) => {
      const err = await p.then(() => null, (e: Error) => e);
      assert.ok(err, "the refresh did not fail");
      return { name: err.name, message: err.message };
    };
    const inWorkers = await failure(generateForecasts(kvA, TOMORROW, step(a)));
    const inThread = await failure(generateForecasts(kvB, TOMORROW, step()));
    assert.deepEqual(inWorkers, {
      name: "UnknownHolidayRegionError",
      message: '"ZZ" is not a holiday region (expected a country "DE" or country-state "DE-BY")',
    });
    assert.deepEqual(inWorkers, inThread);
    // No summary was written: the next refresh runs again.
    assert.equal(await readModelsSummary(kvA), null);
  } finally {
    kvA.close();
    kvB.close();
  }
});
