/**
 * Forecast storage layouts (lib/pipeline/forecasts.ts): generated forecasts are stored as profile
 * references and their values computed on read. These tests pin that the open position is
 * bit-identical to the earlier layout (values stored as arrays), computed independently the old
 * way, that forecasts stored by the earlier layout are still read (and left alone while current),
 * and that customer-wins / newer-supersedes / staleness are unchanged. Real KV (in memory).
 */
import assert from "node:assert/strict";
import { generateProfileForecast, type ProfileCode } from "../../lib/domain/slp/profile.ts";
import { aggregateDay } from "../../lib/pipeline/aggregate.ts";
import { getManyChunked } from "../../lib/store/kv.ts";
import {
  forecastKey,
  forecastValues,
  ingestForecasts,
  isProfileForecast,
  type StoredForecast,
  type ValuesForecast,
} from "../../lib/pipeline/forecasts.ts";
import { generateForecasts } from "../../lib/pipeline/generate.ts";
import { listMarketLocations, type MarketLocation } from "../../lib/pipeline/market_locations.ts";
import type { DayState } from "../../lib/pipeline/day_state.ts";
import { AREAS, maloId } from "../support/portfolio.ts";
import { withMemoryKv } from "../support/temp.ts";

const ACTIVE: string[] = [AREAS.amprion, AREAS.tennet, AREAS.transnet];
const MIX: ProfileCode[] = ["H0", "G0", "H25", "G25", "L0", "L25", "P25", "S25", "G1", "G4"];
const round3 = (v: number) => Math.round(v * 1000) / 1000;
/** Two days before the day, 08:00 UTC: before gate closure. */
const nowFor = (day: string) => Date.parse(`${day}T08:00:00Z`) - 2 * 86_400_000;

/**
 * A mixed portfolio: `n` locations over four areas (one inactive), both directions, every
 * profile, odd annual energies; every 7th without profile (a customer forecast instead).
 */
function portfolio(n: number): MarketLocation[] {
  const areas = Object.values(AREAS);
  return Array.from({ length: n }, (_, i) => {
    const withProfile = i % 7 !== 3;
    return {
      malo_id: maloId(i + 1),
      control_area: areas[i % areas.length],
      direction: i % 5 === 2 ? "generation" : "consumption",
      ...(withProfile
        ? {
          standard_load_profile: MIX[i % MIX.length],
          annual_kwh: 1_000 + ((i * 7_919) % 97_000) + (i % 3) * 0.25,
        }
        : {}),
      updated_at: "2026-01-01T00:00:00.000Z",
    };
  });
}

/** Customer values of location `i` (kW per quarter-hour, 3 decimals). */
const customerValues = (i: number, n: number) =>
  Array.from({ length: n }, (_, k) => round3(0.5 + ((i * 31 + k * 17) % 900) / 7));

async function writeLocations(kv: Deno.Kv, locs: MarketLocation[]): Promise<void> {
  for (let i = 0; i < locs.length; i += 500) {
    const op = kv.atomic();
    for (const l of locs.slice(i, i + 500)) op.set(["market_locations", l.malo_id], l);
    assert.ok((await op.commit()).ok);
  }
}

/**
 * The open position computed the way the earlier code did, independently of lib/pipeline:
 * per location its values (customer as posted; generated = profile forecast rounded to 1 W),
 * summed in location order with the sign of the direction, then kW → MW in 1 W steps.
 */
function oldWayOpenPosition(
  locs: MarketLocation[],
  day: string,
  n: number,
  customer: Map<string, number[]>,
): Record<string, number[]> {
  const sums: Record<string, Float64Array> = {};
  for (const a of ACTIVE) sums[a] = new Float64Array(n);
  for (const loc of locs) {
    if (!ACTIVE.includes(loc.control_area)) continue;
    const values = customer.get(loc.malo_id) ??
      (loc.standard_load_profile
        ? generateProfileForecast(loc.standard_load_profile, loc.annual_kwh!, day, "DE").map(
          round3,
        )
        : undefined);
    if (!values) continue;
    const sign = loc.direction === "generation" ? -1 : 1;
    for (let i = 0; i < n; i++) sums[loc.control_area][i] += sign * values[i];
  }
  return Object.fromEntries(
    Object.entries(sums).map((
      [a, acc],
    ) => [a, Array.from(acc, (kw) => Math.round(kw * 1000) / 1e6)]),
  );
}

for (const [day, n] of [["2026-03-29", 92], ["2026-10-25", 100], ["2026-11-24", 96]] as const) {
  Deno.test(`layout ${day}: open position from profile references is bit-identical to the old values layout`, async () => {
    const locs = portfolio(700);
    const customer = new Map<string, number[]>();
    locs.forEach((l, i) => {
      if (!l.standard_load_profile || i % 11 === 0) customer.set(l.malo_id, customerValues(i, n));
    });
    const expected = oldWayOpenPosition(locs, day, n, customer);
    const nowMs = nowFor(day);
    const items = [...customer].map(([malo_id, values]) => ({
      malo_id,
      delivery_day: day,
      values,
    }));

    // New layout: customer forecasts ingested, the rest generated as references.
    let fresh: Record<string, number[]> = {};
    await withMemoryKv(async (kv) => {
      await writeLocations(kv, locs);
      for (let i = 0; i < items.length; i += 500) {
        await ingestForecasts(kv, items.slice(i, i + 500), "acme", nowMs, "12:00");
      }
      const gen = await generateForecasts(kv, day, { by: "test", nowMs, region: "DE" });
      const withProfile = locs.filter((l) => l.standard_load_profile).length;
      assert.equal(gen.customer, customer.size);
      assert.equal(
        gen.generated,
        withProfile -
          [...customer.keys()].filter((m) =>
            locs.find((l) => l.malo_id === m)!.standard_load_profile
          ).length,
      );
      // Stored as references, values on read equal the rounded profile forecast.
      for (const l of locs.slice(0, 40)) {
        const f = (await kv.get<StoredForecast>(forecastKey(day, l.malo_id))).value;
        if (customer.has(l.malo_id)) {
          assert.equal(f!.source, "customer");
          assert.deepEqual(forecastValues(f!, day), customer.get(l.malo_id));
        } else if (l.standard_load_profile) {
          assert.ok(isProfileForecast(f!), "generated forecasts are stored as references");
          assert.deepEqual(
            forecastValues(f!, day),
            generateProfileForecast(l.standard_load_profile, l.annual_kwh!, day, "DE").map(round3),
          );
        } else assert.equal(f, null);
      }
      const agg = await aggregateDay(kv, day, { by: "test", nowMs, activeAreas: ACTIVE });
      assert.equal(agg.areas[AREAS.amprion].length, n);
      assert.deepEqual(agg.areas, expected, "same MW, bit for bit, as the old way");
      fresh = agg.areas;
    });

    // Old layout (as written before the upgrade): generated values stored as arrays.
    await withMemoryKv(async (kv) => {
      await writeLocations(kv, locs);
      const op = kv.atomic();
      for (const l of locs) {
        const c = customer.get(l.malo_id);
        const values = c ??
          (l.standard_load_profile
            ? generateProfileForecast(l.standard_load_profile, l.annual_kwh!, day, "DE").map(round3)
            : undefined);
        if (!values) continue;
        const rec: ValuesForecast = {
          values,
          source: c ? "customer" : "generated",
          received_at: "2026-01-01T00:00:00.000Z",
          by: c ? "acme" : "orchestrator",
        };
        op.set(forecastKey(day, l.malo_id), rec);
      }
      op.set(
        ["days", day],
        {
          delivery_day: day,
          input_version: 5,
          last_input: null,
          steps: {},
        } satisfies DayState,
      );
      assert.ok((await op.commit()).ok);
      const agg = await aggregateDay(kv, day, { by: "test", nowMs, activeAreas: ACTIVE });
      assert.deepEqual(agg.areas, fresh, "old-layout data aggregates to the same open position");
      assert.equal(agg.version, 5);
      // The upgrade's first generation run finds every old-layout forecast current: no rewrite,
      // no new input version, nothing stale.
      const gen = await generateForecasts(kv, day, { by: "test", nowMs, region: "DE" });
      assert.equal(gen.generated, 0);
      assert.equal(gen.removed, 0);
      assert.equal(gen.input_version, 5);
      const first = locs.find((l) => l.standard_load_profile && !customer.has(l.malo_id))!;
      const kept = (await kv.get<StoredForecast>(forecastKey(day, first.malo_id))).value!;
      assert.ok(
        !isProfileForecast(kept),
        "an old-layout forecast that is current is left as it is",
      );
    });
  });
}

Deno.test("layout: old-layout generated forecasts are replaced when their master data changed, removed without profile", async () => {
  const day = "2026-11-24";
  const nowMs = nowFor(day);
  await withMemoryKv(async (kv) => {
    const locs = portfolio(3).map((l) => ({
      ...l,
      control_area: AREAS.amprion,
      direction: "consumption" as const,
      standard_load_profile: "H0" as const,
      annual_kwh: 4_000,
    }));
    await writeLocations(kv, locs);
    const old = (kwh: number): ValuesForecast => ({
      values: generateProfileForecast("H0", kwh, day, "DE").map(round3),
      source: "generated",
      received_at: "2026-01-01T00:00:00.000Z",
      by: "orchestrator",
    });
    await kv.set(forecastKey(day, locs[0].malo_id), old(4_000)); // current
    await kv.set(forecastKey(day, locs[1].malo_id), old(3_000)); // annual energy changed since
    await kv.set(forecastKey(day, locs[2].malo_id), old(4_000));
    // Location 3 lost its profile.
    const { standard_load_profile: _, annual_kwh: __, ...bare } = locs[2];
    await kv.set(["market_locations", locs[2].malo_id], bare);
    const gen = await generateForecasts(kv, day, { by: "test", nowMs, region: "DE" });
    assert.deepEqual(
      [gen.generated, gen.unchanged, gen.removed, gen.without_profile, gen.input_version],
      [1, 1, 1, 1, 1],
    );
    const second = (await kv.get<StoredForecast>(forecastKey(day, locs[1].malo_id))).value!;
    assert.ok(isProfileForecast(second));
    assert.deepEqual(forecastValues(second, day), old(4_000).values);
    assert.equal((await kv.get(forecastKey(day, locs[2].malo_id))).value, null);
    const agg = await aggregateDay(kv, day, { by: "test", nowMs, activeAreas: [AREAS.amprion] });
    const h0 = old(4_000).values;
    assert.deepEqual(
      agg.areas[AREAS.amprion],
      h0.map((v) => Math.round((v + v) * 1000) / 1e6),
    );
  });
});

Deno.test("layout: a reference made from other profile tables (fingerprint differs) is generated again", async () => {
  const day = "2026-11-24";
  const nowMs = nowFor(day);
  await withMemoryKv(async (kv) => {
    const [loc] = portfolio(1).map((l) => ({
      ...l,
      standard_load_profile: "G0" as const,
      annual_kwh: 50_000,
    }));
    await writeLocations(kv, [loc]);
    const first = await generateForecasts(kv, day, { by: "test", nowMs, region: "DE" });
    assert.equal(first.generated, 1);
    const again = await generateForecasts(kv, day, { by: "test", nowMs, region: "DE" });
    assert.deepEqual([again.generated, again.unchanged, again.input_version], [0, 1, 1]);
    const stored = (await kv.get<StoredForecast>(forecastKey(day, loc.malo_id))).value!;
    assert.ok(isProfileForecast(stored));
    await kv.set(forecastKey(day, loc.malo_id), { ...stored, shape: "00000000" });
    const after = await generateForecasts(kv, day, { by: "test", nowMs, region: "DE" });
    assert.deepEqual([after.generated, after.input_version], [1, 2]);
    // Another holiday region is another reference too.
    const by = await generateForecasts(kv, day, { by: "test", nowMs, region: "DE-BY" });
    assert.deepEqual([by.generated, by.input_version], [1, 3]);
  });
});

Deno.test("layout: a customer forecast replaces a reference, wins over generation, newer supersedes", async () => {
  const day = "2026-11-24";
  const nowMs = nowFor(day);
  await withMemoryKv(async (kv) => {
    const [loc] = portfolio(1).map((l) => ({
      ...l,
      control_area: AREAS.amprion,
      direction: "consumption" as const,
      standard_load_profile: "H0" as const,
      annual_kwh: 4_000,
    }));
    await writeLocations(kv, [loc]);
    await generateForecasts(kv, day, { by: "test", nowMs, region: "DE" });
    const generated = forecastValues(
      (await kv.get<StoredForecast>(forecastKey(day, loc.malo_id))).value!,
      day,
    );
    // Posting exactly the generated values still counts: the source changes to customer.
    const [r1] = await ingestForecasts(
      kv,
      [{
        malo_id: loc.malo_id,
        delivery_day: day,
        values: generated,
      }],
      "acme",
      nowMs,
      "12:00",
    );
    assert.deepEqual([r1.changed, r1.unchanged, r1.input_version], [1, 0, 2]);
    const [same] = await ingestForecasts(
      kv,
      [{
        malo_id: loc.malo_id,
        delivery_day: day,
        values: generated,
      }],
      "acme",
      nowMs,
      "12:00",
    );
    assert.deepEqual([same.changed, same.unchanged, same.input_version], [0, 1, 2]);
    const gen = await generateForecasts(kv, day, { by: "test", nowMs, region: "DE" });
    assert.deepEqual([gen.customer, gen.generated, gen.input_version], [1, 0, 2]);
    const newer = generated.map((v) => v + 1);
    await ingestForecasts(
      kv,
      [{ malo_id: loc.malo_id, delivery_day: day, values: newer }],
      "acme",
      nowMs + 1,
      "12:00",
    );
    const stored = (await kv.get<StoredForecast>(forecastKey(day, loc.malo_id))).value!;
    assert.equal(stored.source, "customer");
    assert.deepEqual(forecastValues(stored, day), newer);
    const agg = await aggregateDay(kv, day, { by: "test", nowMs, activeAreas: [AREAS.amprion] });
    assert.equal(agg.version, 3);
    assert.deepEqual(agg.areas[AREAS.amprion], newer.map((v) => Math.round(v * 1000) / 1e6));
  });
});

Deno.test("getManyChunked: more than 10 keys, concurrent chunks, results in key order", async () => {
  await withMemoryKv(async (kv) => {
    for (let i = 0; i < 37; i += 3) await kv.set(["k", i], i);
    const keys = Array.from({ length: 37 }, (_, i) => ["k", 36 - i]);
    const entries = await getManyChunked<number>(kv, keys);
    assert.equal(entries.length, 37);
    entries.forEach((e, j) => {
      const i = 36 - j;
      assert.deepEqual(e.key, ["k", i]);
      assert.equal(e.value, i % 3 === 0 ? i : null);
    });
    assert.deepEqual(await getManyChunked(kv, []), []);
  });
});

Deno.test("layout: every location listed once; the generated run over many locations stays consistent", async () => {
  // 1,234 locations: several 400-forecast batches; listing and counts agree.
  const day = "2026-11-24";
  const nowMs = nowFor(day);
  await withMemoryKv(async (kv) => {
    const locs = portfolio(1_234);
    await writeLocations(kv, locs);
    assert.equal((await listMarketLocations(kv)).length, locs.length);
    const gen = await generateForecasts(kv, day, { by: "test", nowMs, region: "DE" });
    const withProfile = locs.filter((l) => l.standard_load_profile).length;
    assert.equal(gen.generated, withProfile);
    assert.equal(gen.without_profile, locs.length - withProfile);
    let stored = 0;
    for await (const _ of kv.list({ prefix: ["forecasts", day] })) stored++;
    assert.equal(stored, withProfile);
  });
});
