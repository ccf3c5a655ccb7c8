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

Deno.test("learned refresh: a location that cannot be forecast fails the refresh in words, in workers as in one thread, and only after every batch begun is written whole", async () => {
  await using dir = await tempDir("bridge-learned-workers-fail-");
  const [a, b] = [`${dir.path}/a.kv`, `${dir.path}/b.kv`];
  const kvA = await seeded(a), kvB = await seeded(b);
  try {
    // A holiday region date-holidays does not know, written past the API's validation (a record
    // of an older version), in the second batch of 150: the model cannot tell its working days.
    const bad = ids[200];
    for (const kv of [kvA, kvB]) {
      const key = ["market_locations", bad];
      const rec = (await kv.get<Record<string, unknown>>(key)).value!;
      await kv.set(key, { ...rec, holiday_region: "ZZ" });
    }
    const step = (kvPath?: string) => ({
      by: "test",
      nowMs: NOW,
      region: "DE",
      learned: { horizonDays: 2, gateClosureLocalTime: "12:00", kvPath, replayBudgetMs: 0 },
    });
    /** The refusal, and the MaLo-IDs with a model record the moment it is answered. */
    const failure = async (kv: Deno.Kv, p: Promise<unknown>) => {
      const err = await p.then(() => null, (e: Error) => e);
      assert.ok(err, "the refresh did not fail");
      const stored = (await Promise.all(ids.map((id) => readModel(kv, id))))
        .flatMap((m, k) => m ? [ids[k]] : []);
      return { name: err.name, message: err.message, stored };
    };
    const inWorkers = await failure(kvA, generateForecasts(kvA, TOMORROW, step(a)));
    const inThread = await failure(kvB, generateForecasts(kvB, TOMORROW, step()));
    assert.deepEqual({ name: inWorkers.name, message: inWorkers.message }, {
      name: "UnknownHolidayRegionError",
      message: '"ZZ" is not a holiday region (expected a country "DE" or country-state "DE-BY")',
    });
    assert.deepEqual(
      { name: inThread.name, message: inThread.message },
      { name: inWorkers.name, message: inWorkers.message },
    );
    // The first batch is written whole before the failure is answered, nothing of the failed one:
    // in one thread, and in workers, where the first batch is always begun (by the worker that
    // fails after it, or by the other, which the refresh waits for); the third (20 locations) is
    // written whole if the other worker began it, else not at all.
    assert.deepEqual(inThread.stored, ids.slice(0, 150));
    assert.deepEqual(inWorkers.stored.slice(0, 150), ids.slice(0, 150));
    assert.ok(
      [150, 170].includes(inWorkers.stored.length) &&
        inWorkers.stored.slice(150).every((id) => ids.indexOf(id) >= 300),
      `stored at the failure: ${inWorkers.stored.length}`,
    );
    // No summary was written: the next refresh runs again.
    assert.equal(await readModelsSummary(kvA), null);
  } finally {
    kvA.close();
    kvB.close();
  }
});
