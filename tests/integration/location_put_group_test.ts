/**
 * Group commit of single market-location changes (lib/pipeline/location_put_group.ts;
 * docs/pipeline.md, "Market locations"): single `PUT`s waiting for the master-data lock of one
 * process land in one master-data commit each group — one bump of the master-data version and of
 * the open day per group, not per `PUT` — while every `PUT` keeps its own answer, a location
 * changed twice ends with the later change, an unchanged one writes nothing, and the class table
 * stays exact. Real KV (in memory).
 */
import assert from "node:assert/strict";
import { type DayState, readDay } from "../../lib/pipeline/day_state.ts";
import { ingestForecasts } from "../../lib/pipeline/forecasts.ts";
import { generateForecasts } from "../../lib/pipeline/generate.ts";
import { GROUP_MAX } from "../../lib/pipeline/location_put_group.ts";
import { masterDataVersion } from "../../lib/pipeline/master_data.ts";
import { kvRetryCounts } from "../../lib/store/kv.ts";
import {
  getMarketLocation,
  putMarketLocation,
  putMarketLocations,
} from "../../lib/pipeline/market_locations.ts";
import {
  customerValues,
  expectedTable,
  type LocationInput,
  nowFor,
  portfolio,
  storedTable,
} from "../support/profile_portfolio.ts";
import { withMemoryKv } from "../support/temp.ts";

const DAY = "2026-11-26";
const CHANGE = { by: "acme", gateClosureLocalTime: "12:00" };

Deno.test("single PUTs waiting for the master-data lock are committed in groups, each with its own answer", async () => {
  await withMemoryKv(async (kv) => {
    const at = nowFor(DAY);
    const locs = portfolio(100);
    await putMarketLocations(kv, locs, at);
    const c = locs[0];
    await ingestForecasts(
      kv,
      [{ malo_id: c.malo_id, delivery_day: DAY, values: customerValues(0, 96) }],
      "acme",
      at,
    );
    await generateForecasts(kv, DAY, { by: "orchestrator", nowMs: at, region: "DE" });
    const v0 = (await readDay(kv, DAY)).value!.input_version;
    const m0 = await masterDataVersion(kv);

    // 20 changes at once: 17 new annual energies, one location twice, one new, one unchanged.
    const profiled = locs.filter((l) => l.standard_load_profile);
    const changed = profiled.slice(0, 17).map((l, i) => ({
      ...l,
      annual_kwh: l.annual_kwh! + i + 1,
    }));
    const twice = profiled[0];
    const fresh: LocationInput = { ...portfolio(1, 100)[0] };
    const same = locs[50];
    const inputs = [...changed, { ...twice, annual_kwh: 1 }, fresh, same];
    const answers = await Promise.all(
      inputs.map(({ malo_id, ...input }, i) =>
        putMarketLocation(kv, malo_id, input, at + i, { ...CHANGE })
      ),
    );

    const groups = Math.ceil(inputs.length / GROUP_MAX); // the second change of `twice` fits a later group
    assert.equal(await masterDataVersion(kv), m0 + groups, "one master-data bump per group");
    const day: DayState = (await readDay(kv, DAY)).value!;
    assert.equal(day.input_version, v0 + groups, "one bump of the open day per group");
    assert.deepEqual(
      [day.last_input?.source, day.last_input?.by],
      ["master_data", "acme"],
    );
    answers.slice(0, 17).forEach((a, i) => {
      assert.equal(a.created, false);
      assert.equal(a.location.annual_kwh, changed[i].annual_kwh);
      assert.equal(a.location.updated_at, new Date(at + i).toISOString(), "its own time");
    });
    assert.deepEqual([answers[17].created, answers[17].location.annual_kwh], [false, 1]);
    assert.deepEqual([answers[18].created, answers[18].location.malo_id], [true, fresh.malo_id]);
    assert.equal(answers[19].created, false);
    assert.equal(answers[19].location.updated_at, new Date(at).toISOString(), "unchanged: kept");

    assert.equal((await getMarketLocation(kv, twice.malo_id))!.annual_kwh, 1, "the later change");
    const now = new Map(locs.map((l) => [l.malo_id, l]));
    for (const l of [...changed, { ...twice, annual_kwh: 1 }, fresh]) now.set(l.malo_id, l);
    assert.deepEqual(await storedTable(kv), expectedTable(now.values()), "class table exact");
  });
});

Deno.test("a group of single PUTs holds one caller: another caller's change is committed apart", async () => {
  await withMemoryKv(async (kv) => {
    const at = nowFor(DAY);
    const locs = portfolio(10);
    await putMarketLocations(kv, locs, at);
    await generateForecasts(kv, DAY, { by: "orchestrator", nowMs: at, region: "DE" });
    const m0 = await masterDataVersion(kv);
    const put = (l: LocationInput, by: string) => {
      const { malo_id, ...input } = l;
      return putMarketLocation(kv, malo_id, { ...input, name: `renamed by ${by}` }, at, {
        by,
        gateClosureLocalTime: "12:00",
      });
    };
    await Promise.all([put(locs[0], "acme"), put(locs[1], "globex"), put(locs[2], "acme")]);
    assert.equal(await masterDataVersion(kv), m0 + 2, "acme's two together, globex's apart");
    const day: DayState = (await readDay(kv, DAY)).value!;
    assert.equal(day.last_input?.by, "globex");
    assert.equal(day.last_input?.market_locations, 1);
  });
});

Deno.test("forecast uploads of the process queue behind its master-data changes and lose no round to them", async () => {
  await withMemoryKv(async (kv) => {
    const at = nowFor(DAY);
    const locs = portfolio(100);
    await putMarketLocations(kv, locs, at);
    await generateForecasts(kv, DAY, { by: "orchestrator", nowMs: at, region: "DE" });
    const v0 = (await readDay(kv, DAY)).value!.input_version;
    const lost0 = kvRetryCounts().conflict;
    const put = (l: LocationInput, i: number) => {
      const { malo_id, ...input } = l;
      return putMarketLocation(kv, malo_id, { ...input, name: `n${i}` }, at, { ...CHANGE });
    };
    const upload = (k: number) =>
      ingestForecasts(
        kv,
        locs.slice(k * 10, k * 10 + 10).map((l, i) => ({
          malo_id: l.malo_id,
          delivery_day: DAY,
          values: customerValues(i + k, 96),
        })),
        "acme",
        at,
      );
    // In call order: 10 PUTs, an upload, 10 PUTs, an upload, 10 PUTs, an upload.
    const calls: Promise<unknown>[] = [];
    for (let k = 0; k < 3; k++) {
      for (let i = 0; i < 10; i++) calls.push(put(locs[50 + k * 10 + i], i));
      calls.push(upload(k));
    }
    await Promise.all(calls);
    assert.equal(kvRetryCounts().conflict - lost0, 0, "no round lost");
    // Groups: PUTs 1–8, 9–16 (with 11–16 of the second ten), the upload, 17–24, the second
    // upload, 25–30, the third upload: 4 master-data commits and 3 uploads.
    const day: DayState = (await readDay(kv, DAY)).value!;
    assert.equal(day.input_version, v0 + 4 + 3);
  });
});
