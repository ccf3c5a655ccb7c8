/**
 * Profile classes (lib/pipeline/profile_classes.ts, generate.ts, aggregate.ts): nothing is stored
 * per profile location any more, yet the open position must equal the sum over every market
 * location — computed here location by location from `generateProfileForecast` and the
 * customers' values (tests/support/profile_portfolio.ts) — on days of 92, 100 and 96
 * quarter-hours; earlier versions' stores are upgraded; the forecast step bumps the day only when
 * the profile inputs changed. Real KV (in memory).
 */
import assert from "node:assert/strict";
import { quarterHourCount } from "../../lib/domain/delivery_day.ts";
import { generateProfileForecast, shapeFingerprint } from "../../lib/domain/slp/profile.ts";
import { aggregateDay } from "../../lib/pipeline/aggregate.ts";
import type { DayState } from "../../lib/pipeline/day_state.ts";
import {
  forecastKey,
  ingestForecasts,
  type LegacyProfileForecast,
  type ValuesForecast,
} from "../../lib/pipeline/forecasts.ts";
import { generateForecasts } from "../../lib/pipeline/generate.ts";
import { putMarketLocation, putMarketLocations } from "../../lib/pipeline/market_locations.ts";
import { KEYS } from "../../lib/store/keys.ts";
import { maloId } from "../support/portfolio.ts";
import {
  ACTIVE,
  assertSameMw,
  customerValues,
  exactOpenPosition,
  expectedTable,
  forecastRecords,
  type LocationInput,
  nowFor,
  portfolio,
  storedTable,
  writeLocationsDirectly,
} from "../support/profile_portfolio.ts";
import { withMemoryKv } from "../support/temp.ts";

const REGISTERED_AT = Date.parse("2026-01-05T10:00:00Z");

/** Registers `locs` through the batch upsert, 500 per call (the class table kept by lib). */
async function register(kv: Deno.Kv, locs: LocationInput[]): Promise<void> {
  for (let i = 0; i < locs.length; i += 500) {
    const r = await putMarketLocations(kv, locs.slice(i, i + 500), REGISTERED_AT);
    assert.equal(r.created, Math.min(500, locs.length - i));
  }
}

/** Ingests customer forecasts (as the API does), 500 per call. */
async function ingest(kv: Deno.Kv, day: string, customers: Map<string, number[]>) {
  const items = [...customers].map(([malo_id, values]) => ({ malo_id, delivery_day: day, values }));
  for (let i = 0; i < items.length; i += 500) {
    await ingestForecasts(kv, items.slice(i, i + 500), "acme", nowFor(day));
  }
}

/** Customer forecasts of the locations `i` with `pick(i)`, for a day of `n` quarter-hours. */
function customersOf(locs: LocationInput[], n: number, pick: (i: number) => boolean) {
  const out = new Map<string, number[]>();
  locs.forEach((l, i) => {
    if (pick(i)) out.set(l.malo_id, customerValues(i, n));
  });
  return out;
}

const gen = (kv: Deno.Kv, day: string, region = "DE") =>
  generateForecasts(kv, day, { by: "test", nowMs: nowFor(day), region });
const agg = (kv: Deno.Kv, day: string) =>
  aggregateDay(kv, day, { by: "test", nowMs: nowFor(day), activeAreas: ACTIVE, region: "DE" });

Deno.test("profile classes: 100,000 market locations on days of 92, 100 and 96 quarter-hours equal the per-location sum", async () => {
  const started = performance.now();
  await withMemoryKv(async (kv) => {
    const locs = portfolio(100_000);
    await register(kv, locs);
    const registered = performance.now();
    assert.deepEqual(await storedTable(kv), expectedTable(locs), "class table of the batches");
    const byId = new Map(locs.map((l) => [l.malo_id, l]));
    const pick = (i: number) => i % 97 === 13; // 1,031 locations
    // The first customer location with a profile in an active area sends the wrong count.
    const wrong = locs.findIndex((l, i) =>
      pick(i) && l.standard_load_profile && ACTIVE.includes(l.control_area)
    );
    const unknown = maloId(999_999);
    const sums: string[] = [];
    for (const [day, n] of [["2026-03-29", 92], ["2026-10-25", 100], ["2026-11-24", 96]] as const) {
      assert.equal(quarterHourCount(day), n);
      const customers = customersOf(locs, n, pick);
      customers.set(locs[wrong].malo_id, customerValues(wrong, n + 4));
      const covered = [...customers.keys()].map((m) => byId.get(m)!);
      // The fixture covers what it must: profile and non-profile, active and inactive areas.
      for (const p of [true, false]) {
        for (const active of [true, false]) {
          assert.ok(
            covered.some((l) =>
              Boolean(l.standard_load_profile) === p && ACTIVE.includes(l.control_area) === active
            ),
          );
        }
      }
      await ingest(kv, day, customers);
      // Ingestion refuses unknown locations: an earlier-registered one's forecast, stored as is.
      const unknownValues = customerValues(7, n);
      await kv.set(
        forecastKey(day, unknown),
        {
          values: unknownValues,
          source: "customer",
          received_at: "2026-01-06T00:00:00.000Z",
          by: "acme",
        } satisfies ValuesForecast,
      );
      const before = (await kv.get<DayState>(KEYS.day(day))).value!.input_version;

      const g = await gen(kv, day);
      const profiled = locs.filter((l) => l.standard_load_profile).length;
      const coveredProfiled = covered.filter((l) => l.standard_load_profile).length;
      assert.deepEqual(
        [g.generated, g.unchanged, g.removed, g.customer, g.without_profile, g.input_version],
        [
          profiled - coveredProfiled,
          0,
          0,
          customers.size,
          locs.length - profiled - (covered.length - coveredProfiled),
          before + 1,
        ],
        `${day}: forecast step`,
      );
      const a = await agg(kv, day);
      customers.set(unknown, unknownValues);
      const exact = exactOpenPosition(locs, day, customers, { withProfiles: true });
      assert.equal(a.quarter_hours.length, n);
      const worst = assertSameMw(a.areas, exact.kw, 0.001, day);
      assert.deepEqual(a.counts, exact.counts, `${day}: counts`);
      assert.equal(a.counts.unknown_location, 1);
      assert.equal(a.version, g.input_version);
      // Nothing stored per profile location: only the customers' forecasts (and the unknown one).
      assert.equal(await forecastRecords(kv, day), customers.size, `${day}: forecast records`);
      sums.push(
        `${day} ${n} qh: ${a.counts.market_locations} summed, worst ${worst.toExponential(1)} MW`,
      );
    }
    const done = performance.now();
    console.log(
      `  registered 100,000 in ${((registered - started) / 1000).toFixed(1)} s; three days in ${
        ((done - registered) / 1000).toFixed(1)
      } s (${sums.join("; ")})`,
    );
  });
});

Deno.test("profile classes: a store of an earlier version is upgraded by the forecast step (table built, per-location records deleted)", async () => {
  const day = "2026-11-24";
  const n = 96;
  await withMemoryKv(async (kv) => {
    const locs = portfolio(3_000);
    await writeLocationsDirectly(kv, locs);
    const customers = customersOf(locs, n, (i) => i % 50 === 7);
    let legacy = 0;
    const records: [Deno.KvKey, unknown][] = [];
    const meta = { received_at: "2026-01-06T00:00:00.000Z", by: "orchestrator" };
    locs.forEach((l, i) => {
      const values = customers.get(l.malo_id);
      if (values) {
        const f: ValuesForecast = { values, source: "customer", ...meta, by: "acme" };
        records.push([forecastKey(day, l.malo_id), f]);
        return;
      }
      if (!l.standard_load_profile) return;
      legacy++;
      const p = l.standard_load_profile;
      // Both layouts of earlier versions: a reference to the profile, or the values themselves.
      const f: LegacyProfileForecast | ValuesForecast = i % 2
        ? {
          source: "generated",
          profile: p,
          annual_kwh: l.annual_kwh!,
          region: "DE",
          shape: shapeFingerprint(p, day, "DE"),
          ...meta,
        }
        : {
          values: generateProfileForecast(p, l.annual_kwh!, day, "DE").map((v) =>
            Math.round(v * 1000) / 1000
          ),
          source: "generated",
          ...meta,
        };
      records.push([forecastKey(day, l.malo_id), f]);
    });
    // The day as the earlier version left it: forecast step run (without a profile digest).
    const state: DayState = {
      delivery_day: day,
      input_version: 4,
      last_input: null,
      steps: { forecast: { version: 4, at: meta.received_at, by: "orchestrator", detail: {} } },
    };
    records.push([KEYS.day(day), state]);
    for (let i = 0; i < records.length; i += 500) {
      const op = kv.atomic();
      for (const [k, v] of records.slice(i, i + 500)) op.set(k, v);
      assert.ok((await op.commit()).ok);
    }
    // Another day's old record is left to that day's own forecast step.
    const other = forecastKey("2026-11-25", locs[0].malo_id);
    await kv.set(other, { values: [1], source: "generated", received_at: "x", by: "orchestrator" });
    assert.equal(await storedTable(kv), null, "no class table before the upgrade");
    assert.ok(legacy > 2_000);

    const g = await gen(kv, day);
    assert.equal(g.removed, legacy);
    assert.equal(g.customer, customers.size);
    assert.equal(g.input_version, 5, "the first digest differs from none: the day turns stale");
    assert.deepEqual(await storedTable(kv), expectedTable(locs), "table built from the locations");
    assert.equal(await forecastRecords(kv, day), customers.size, "only customer forecasts left");
    const [malo, values] = [...customers][3];
    const kept = (await kv.get<ValuesForecast>(forecastKey(day, malo))).value!;
    assert.deepEqual([kept.source, kept.values], ["customer", values]);
    assert.notEqual((await kv.get(other)).value, null);

    const a = await agg(kv, day);
    const exact = exactOpenPosition(locs, day, customers, { withProfiles: true });
    assertSameMw(a.areas, exact.kw, 0.001, "upgraded");
    assert.deepEqual(a.counts, exact.counts);
    assert.equal(a.version, 5);
    const again = await gen(kv, day);
    assert.deepEqual([again.removed, again.generated, again.input_version], [0, 0, 5]);
  });
});

Deno.test("profile classes: the forecast step bumps the day only when the profile inputs changed", async () => {
  const day = "2026-10-25";
  const n = 100;
  await withMemoryKv(async (kv) => {
    const locs = portfolio(2_000);
    await register(kv, locs);
    const customers = customersOf(locs, n, (i) => i % 97 === 13);
    await ingest(kv, day, customers);
    const v0 = (await kv.get<DayState>(KEYS.day(day))).value!.input_version;
    const profiled = locs.filter((l) => l.standard_load_profile && !customers.has(l.malo_id))
      .length;

    const first = await gen(kv, day);
    assert.deepEqual([first.generated, first.unchanged, first.input_version], [
      profiled,
      0,
      v0 + 1,
    ]);
    const second = await gen(kv, day);
    assert.deepEqual([second.generated, second.unchanged, second.input_version], [
      0,
      profiled,
      v0 + 1,
    ]);
    assert.equal((await kv.get<DayState>(KEYS.day(day))).value!.input_version, v0 + 1);
    const a1 = await agg(kv, day);
    assertSameMw(a1.areas, exactOpenPosition(locs, day, customers, { withProfiles: true }).kw);

    // One generating profile location in an active area gets another annual energy.
    const i = locs.findIndex((l) =>
      l.standard_load_profile && l.direction === "generation" && l.control_area === ACTIVE[1] &&
      !customers.has(l.malo_id)
    );
    const old = locs[i];
    const changed = { ...old, annual_kwh: old.annual_kwh! + 250_000.4321 };
    await putMarketLocation(kv, old.malo_id, changed, REGISTERED_AT + 1);
    const third = await gen(kv, day);
    assert.deepEqual([third.generated, third.unchanged, third.input_version], [
      profiled,
      0,
      v0 + 2,
    ]);
    assert.equal(third.master_version, first.master_version + 1);
    const a2 = await agg(kv, day);
    assert.equal(a2.version, v0 + 2);
    const before = generateProfileForecast(old.standard_load_profile!, old.annual_kwh!, day, "DE");
    const after = generateProfileForecast(
      old.standard_load_profile!,
      changed.annual_kwh,
      day,
      "DE",
    );
    for (const area of ACTIVE) {
      if (area !== old.control_area) {
        assert.deepEqual(a2.areas[area], a1.areas[area], `${area} unchanged`);
        continue;
      }
      a2.areas[area].forEach((mw, q) => {
        const expected = -(after[q] - before[q]) / 1000; // generation: negative
        const d = mw - a1.areas[area][q] - expected;
        assert.ok(Math.abs(d) <= 1e-5, `quarter-hour ${q}: changed by ${mw - a1.areas[area][q]}`);
      });
    }
    const now = locs.map((l, k) => k === i ? changed : l);
    assertSameMw(a2.areas, exactOpenPosition(now, day, customers, { withProfiles: true }).kw);

    // Another holiday region is another set of shapes: the day turns stale again.
    const region = await gen(kv, day, "DE-BY");
    assert.deepEqual([region.generated, region.input_version], [profiled, v0 + 3]);
  });
});

Deno.test("profile classes: aggregating a day whose forecast step never ran sums only customer forecasts", async () => {
  const day = "2026-11-24";
  const n = 96;
  await withMemoryKv(async (kv) => {
    const locs = portfolio(700);
    await register(kv, locs);
    const customers = customersOf(locs, n, (i) => i % 13 === 4);
    await ingest(kv, day, customers);
    const a = await agg(kv, day);
    const exact = exactOpenPosition(locs, day, customers, { withProfiles: false });
    assertSameMw(a.areas, exact.kw, 0.001, "customers only");
    assert.deepEqual(a.counts, exact.counts);
    const active = locs.filter((l) => ACTIVE.includes(l.control_area));
    const activeCustomers = active.filter((l) => customers.has(l.malo_id)).length;
    assert.deepEqual(
      [a.counts.market_locations, a.counts.missing_forecast],
      [activeCustomers, active.length - activeCustomers],
      "profile locations without customer forecast are missing",
    );
    await gen(kv, day);
    const b = await agg(kv, day);
    const full = exactOpenPosition(locs, day, customers, { withProfiles: true });
    assertSameMw(b.areas, full.kw, 0.001, "after the forecast step");
    assert.deepEqual(b.counts, full.counts);
    assert.ok(b.counts.missing_forecast < a.counts.missing_forecast);
  });
});
