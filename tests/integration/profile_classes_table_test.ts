/**
 * The profile class table (lib/pipeline/profile_classes.ts) is kept by every master-data change
 * (lib/pipeline/market_locations.ts). After any mix of changes — also from two KV handles on one
 * store writing at the same time, as two replicas do — it must equal the table rebuilt from
 * scratch from the stored market locations, and the one computed here from them
 * (tests/support/profile_portfolio.ts). Real KV (in memory; a temporary file for two handles).
 */
import assert from "node:assert/strict";
import {
  deleteMarketLocation,
  listMarketLocations,
  type MarketLocation,
  putMarketLocation,
  putMarketLocations,
} from "../../lib/pipeline/market_locations.ts";
import { masterDataVersion, profileClasses } from "../../lib/pipeline/master_data.ts";
import { KEYS } from "../../lib/store/keys.ts";
import { AREAS } from "../support/portfolio.ts";
import {
  expectedTable,
  location,
  type LocationInput,
  portfolio,
  storedTable,
} from "../support/profile_portfolio.ts";
import { withMemoryKv, withTempDir } from "../support/temp.ts";

let clock = Date.parse("2026-01-05T10:00:00Z");
const tick = () => clock += 1_000;

const strip = ({ updated_at: _, ...rest }: MarketLocation): LocationInput => rest;

/**
 * Asserts the stored table equals the one computed from `model` (when given) and from the stored
 * locations, and the one `profileClasses` rebuilds after the table is deleted.
 */
async function assertTable(kv: Deno.Kv, what: string, model?: Map<string, LocationInput>) {
  const stored = await storedTable(kv);
  const listed = (await listMarketLocations(kv)).map(strip);
  if (model) {
    assert.deepEqual(listed, [...model.values()].sort((a, b) => a.malo_id < b.malo_id ? -1 : 1));
  }
  assert.deepEqual(stored, expectedTable(listed), `${what}: stored table`);
  await kv.delete(KEYS.profileClassesVersion); // the table no longer claims to be current
  const rebuilt = await profileClasses(kv);
  assert.deepEqual(rebuilt.table, stored, `${what}: rebuilt from scratch`);
}

/** Location `i` with `change` applied (and keys set to `undefined` removed). */
function changed(i: number, change: Partial<LocationInput>): LocationInput {
  const l: Record<string, unknown> = { ...location(i), ...change };
  for (const k of Object.keys(l)) if (l[k] === undefined) delete l[k];
  return l as unknown as LocationInput;
}
const noProfile = { standard_load_profile: undefined, annual_kwh: undefined };

Deno.test("profile class table: equals the rebuilt one after puts, replacements, deletes, re-puts and batches", async () => {
  await withMemoryKv(async (kv) => {
    const model = new Map<string, LocationInput>();
    const put = async (l: LocationInput) => {
      const r = await putMarketLocation(kv, l.malo_id, l, tick());
      model.set(l.malo_id, l);
      return r;
    };
    const batch = async (items: LocationInput[]) => {
      const r = await putMarketLocations(kv, items, tick());
      for (const l of items) model.set(l.malo_id, l);
      return r;
    };

    for (let i = 0; i < 1_200; i += 500) {
      assert.deepEqual(await batch(portfolio(Math.min(500, 1_200 - i), i)), {
        created: Math.min(500, 1_200 - i),
        replaced: 0,
        unchanged: 0,
      });
    }
    await assertTable(kv, "batches", model);
    for (const l of portfolio(10, 1_200)) assert.equal((await put(l)).created, true);
    await assertTable(kv, "single puts", model);

    // Replacements, one field at a time and all at once.
    const a0 = location(0);
    assert.equal(location(3).standard_load_profile, undefined);
    const replacements = [
      changed(0, { control_area: a0.control_area === AREAS.hertz ? AREAS.amprion : AREAS.hertz }),
      changed(1, {
        direction: location(1).direction === "generation" ? "consumption" : "generation",
      }),
      changed(2, { standard_load_profile: "L25" }),
      changed(3, { standard_load_profile: "H0", annual_kwh: 3_456.789 }), // profile added
      changed(4, { annual_kwh: location(4).annual_kwh! + 0.0004 }), // less than 1 Wh/a
      changed(5, { annual_kwh: location(5).annual_kwh! + 1_234.5678 }),
      changed(6, noProfile), // profile removed
      changed(8, {
        control_area: AREAS.tennet,
        direction: "generation",
        standard_load_profile: "P25",
        annual_kwh: 9_999.9999,
      }),
      changed(9, { name: "only the name" }),
    ];
    for (const l of replacements) assert.equal((await put(l)).created, false);
    await assertTable(kv, "replacements", model);

    // Unchanged re-puts change nothing: not the table, not the master-data version.
    const version = await masterDataVersion(kv);
    const before = (await kv.get(KEYS.profileClassesVersion)).versionstamp;
    await put(location(10));
    await put(replacements[3]);
    assert.deepEqual(await batch(portfolio(100, 100)), { created: 0, replaced: 0, unchanged: 100 });
    assert.equal((await kv.get(KEYS.profileClassesVersion)).versionstamp, before);
    assert.equal(await masterDataVersion(kv), version);

    // Deletes: with and without profile, twice, and of a location that never existed.
    for (const i of [11, 17, 6, 1_205]) {
      assert.equal(await deleteMarketLocation(kv, location(i).malo_id, tick()), true);
      model.delete(location(i).malo_id);
    }
    assert.equal(await deleteMarketLocation(kv, location(11).malo_id, tick()), false);
    assert.equal(await deleteMarketLocation(kv, location(50_000).malo_id, tick()), false);
    await assertTable(kv, "deletes", model);

    // A mixed batch: unchanged, replaced (every kind), new, and deleted ones back.
    const kinds: Partial<LocationInput>[] = [
      { control_area: AREAS.transnet },
      noProfile,
      { standard_load_profile: "G4", annual_kwh: 100.25 },
      { direction: "generation" },
    ];
    const replacing = Array.from({ length: 100 }, (_, k) => changed(400 + k, kinds[k % 4]));
    const replaced = replacing.filter((l, k) =>
      JSON.stringify(l) !== JSON.stringify(location(400 + k))
    ).length;
    assert.ok(replaced > 50);
    const mixed = [
      ...portfolio(100, 300),
      ...replacing,
      ...portfolio(100, 5_000),
      location(11),
      location(17),
    ];
    assert.deepEqual(await batch(mixed), { created: 102, replaced, unchanged: 200 - replaced });
    await assertTable(kv, "mixed batch", model);
  });
});

Deno.test("profile class table: two KV handles on one store writing batches at the same time lose no change", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/store.kv`;
    const a = await Deno.openKv(path);
    const b = await Deno.openKv(path);
    try {
      for (let i = 0; i < 2_000; i += 500) await putMarketLocations(a, portfolio(500, i), tick());
      await assertTable(a, "seeded");
      // Both replicas replace the same 2,000 locations (in opposite orders, differently) and
      // add their own, batch by batch; a writes single changes and deletes in between.
      const variant = (l: LocationInput, k: number, round: number): LocationInput =>
        k % 3 === 0
          ? { ...l, control_area: Object.values(AREAS)[(k + round) % 4] }
          : k % 3 === 1
          ? changed(k, noProfile)
          : { ...l, annual_kwh: (l.annual_kwh ?? 500) * (1.5 + round) + 0.123 };
      const writer = async (kv: Deno.Kv, round: number, reverse: boolean) => {
        const starts = [0, 250, 500, 750, 1_000, 1_250, 1_500, 1_750];
        if (reverse) starts.reverse();
        for (const s of starts) {
          const items = portfolio(250, s).map((l, k) => variant(l, k + s, round));
          await putMarketLocations(
            kv,
            [...items, ...portfolio(50, 10_000 + round * 1_000 + s)],
            tick(),
          );
        }
      };
      const singles = async () => {
        for (let i = 0; i < 40; i++) {
          const id = location(i * 37).malo_id;
          if (i % 2) await deleteMarketLocation(a, id, tick());
          else await putMarketLocation(a, id, changed(i * 37, { direction: "generation" }), tick());
        }
      };
      for (let round = 0; round < 3; round++) {
        await Promise.all([writer(a, 2 * round, false), writer(b, 2 * round + 1, true), singles()]);
        const [ta, tb] = [await storedTable(a), await storedTable(b)];
        assert.deepEqual(ta, tb, "both handles read one table");
        await assertTable(b, `concurrent round ${round + 1}`);
      }
    } finally {
      a.close();
      b.close();
    }
  });
});

Deno.test("profile class table: a change written by an earlier version (rolling upgrade) makes the next read build it again", async () => {
  await withMemoryKv(async (kv) => {
    await putMarketLocations(kv, portfolio(300), tick());
    await assertTable(kv, "before");
    // An earlier version's replica: writes a location and bumps the version, not the table.
    const old = { ...location(5), annual_kwh: 123_456.5, updated_at: "2026-01-01T00:00:00.000Z" };
    await kv.atomic().set(KEYS.marketLocation(old.malo_id), old).sum(KEYS.masterDataVersion, 1n)
      .commit();
    assert.notDeepEqual(
      await storedTable(kv),
      expectedTable((await listMarketLocations(kv)).map(strip)),
    );
    // The next change through this version reads the table, sees it is behind, builds it again.
    await putMarketLocation(kv, location(400).malo_id, changed(400, {}), tick());
    await assertTable(kv, "after the earlier version's change");
  });
});

Deno.test("profile classes: a location with a customer forecast that moves area after the forecast step is taken out of the area it is in", async () => {
  const { generateForecasts } = await import("../../lib/pipeline/generate.ts");
  const { aggregateDay } = await import("../../lib/pipeline/aggregate.ts");
  const { ingestForecasts } = await import("../../lib/pipeline/forecasts.ts");
  const day = "2026-11-24";
  await withMemoryKv(async (kv) => {
    const nowMs = Date.parse("2026-11-22T08:00:00Z");
    const h0 = {
      control_area: AREAS.amprion,
      direction: "consumption" as const,
      standard_load_profile: "H0" as const,
      annual_kwh: 4_000,
    };
    await putMarketLocation(kv, location(1).malo_id, h0, tick());
    // The customer forecasts zero for it: the open position must be zero wherever it is.
    await ingestForecasts(
      kv,
      [{
        malo_id: location(1).malo_id,
        delivery_day: day,
        values: Array(96).fill(0),
      }],
      "test",
      nowMs,
    );
    const opts = { by: "test", nowMs, region: "DE" };
    const aggOpts = { ...opts, activeAreas: [AREAS.amprion, AREAS.tennet] };
    await generateForecasts(kv, day, opts);
    await putMarketLocation(kv, location(1).malo_id, { ...h0, control_area: AREAS.tennet }, tick());
    const agg = await aggregateDay(kv, day, aggOpts);
    assert.ok(agg.areas[AREAS.amprion].every((v) => v === 0), agg.areas[AREAS.amprion].join());
    assert.ok(agg.areas[AREAS.tennet].every((v) => v === 0), agg.areas[AREAS.tennet].join());
    assert.equal(agg.counts.market_locations, 1);
  });
});
