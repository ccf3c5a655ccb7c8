/**
 * The forecast step under a steady stream of input changes (docs/pipeline.md, "Forecasts", the
 * forecast step under steady input; docs/mixed-load.md): while the step reads its inputs, a location's annual energy changes (a
 * master-data change that bumps the open day and the profile digest) or a customer forecast of the
 * day arrives. The step, on its own KV handle as in the
 * pipeline worker, must finish in a few commits — not start over until its retries run out — and
 * record the input version it read, so the day shows it stale and the next pass runs it again;
 * once the input is quiet, the next run is current. Aggregation likewise. Real KV on a temp file,
 * fake clock.
 */
import assert from "node:assert/strict";
import { FakeClock } from "../../lib/clock.ts";
import { aggregateDay, readAggregate } from "../../lib/pipeline/aggregate.ts";
import { plannedSteps } from "../../lib/orchestrator/step_selection.ts";
import { type DayState, readDay } from "../../lib/pipeline/day_state.ts";
import { ingestForecasts } from "../../lib/pipeline/forecasts.ts";
import { generateForecasts } from "../../lib/pipeline/generate.ts";
import { masterDataVersion } from "../../lib/pipeline/master_data.ts";
import { putMarketLocation, putMarketLocations } from "../../lib/pipeline/market_locations.ts";
import { staleness } from "../../lib/pipeline/staleness.ts";
import { ACTIVE, customerValues, nowFor, portfolio } from "../support/profile_portfolio.ts";
import { withTempDir } from "../support/temp.ts";
import { KEYS } from "../../lib/store/keys.ts";

const DAY = "2026-11-26";
const N_QH = 96;
const CHANGE = { by: "acme", gateClosureLocalTime: "12:00" };

/**
 * `kv` as the step sees it: `before()` runs ahead of every read of the master-data version and
 * every listing of the day's forecasts — the step's reads of its inputs — so the stream changes
 * the input while the step reads; every atomic commit is counted.
 */
function steadyInput(kv: Deno.Kv, before: () => Promise<void>) {
  const counts = { commits: 0, failed: 0 };
  const forecastsOfDay = JSON.stringify(KEYS.forecastsOfDay(DAY));
  const wrapped = new Proxy(kv, {
    get(target, prop) {
      if (prop === "get") {
        return async (...a: Parameters<Deno.Kv["get"]>) => {
          if (JSON.stringify(a[0]) === JSON.stringify(KEYS.masterDataVersion)) await before();
          return await target.get(...a);
        };
      }
      if (prop === "list") {
        return (...a: Parameters<Deno.Kv["list"]>) =>
          JSON.stringify(a[0]) === forecastsOfDay
            ? {
              async *[Symbol.asyncIterator]() {
                await before();
                yield* target.list(...a);
              },
            }
            : target.list(...a);
      }
      if (prop === "atomic") {
        return () => {
          const op = target.atomic();
          const commit = op.commit.bind(op);
          op.commit = async () => {
            counts.commits++;
            const r = await commit();
            if (!r.ok) counts.failed++;
            return r;
          };
          return op;
        };
      }
      const v = Reflect.get(target, prop);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  return { kv: wrapped, counts };
}

Deno.test("forecast step and aggregation: under a steady stream of input changes each finishes in a few commits and records the version it read", async () => {
  await withTempDir(async (dir) => {
    const clock = new FakeClock(nowFor(DAY));
    const writer = await Deno.openKv(`${dir}/t.kv`); // the app's handle: requests
    const own = await Deno.openKv(`${dir}/t.kv`); // the pipeline worker's handle
    try {
      const locs = portfolio(1_000);
      for (let i = 0; i < locs.length; i += 500) {
        await putMarketLocations(writer, locs.slice(i, i + 500), clock.now());
      }
      const customers = locs.filter((_, i) => i % 4 === 0).map((l, i) => ({
        malo_id: l.malo_id,
        delivery_day: DAY,
        values: customerValues(i, N_QH),
      }));
      await ingestForecasts(writer, customers, "acme", clock.now());
      const opts = () => ({ by: "orchestrator", nowMs: clock.now(), region: "DE" });
      await generateForecasts(writer, DAY, opts()); // the day has a step: master data bumps it

      // The stream: a new annual energy of a profile location, or a customer forecast of the day.
      const target = locs.find((l) => l.standard_load_profile)!;
      let changes = 0;
      const change = async () => {
        clock.advance(1_000);
        changes++;
        if (changes % 2) {
          const annual_kwh = target.annual_kwh! + changes;
          await putMarketLocation(writer, target.malo_id, { ...target, annual_kwh }, clock.now(), {
            ...CHANGE,
          });
        } else {
          const c = customers[changes % customers.length];
          const values = customerValues(changes, N_QH).map((v) => v + 1_000); // new values
          await ingestForecasts(writer, [{ ...c, values }], "acme", clock.now());
        }
      };
      const step = steadyInput(own, change);
      const before = (await readDay(writer, DAY)).value!.input_version;

      const r = await generateForecasts(step.kv, DAY, opts());

      assert.ok(changes >= 3, `the input changed ${changes} times while the step ran`);
      assert.ok(
        step.counts.commits <= 3,
        `${step.counts.commits} commits (${step.counts.failed} lost)`,
      );
      const state: DayState = (await readDay(writer, DAY)).value!;
      // It consumed the version it read at its start; the day has moved on since.
      assert.equal(r.input_version, before, JSON.stringify(r));
      // Every change bumped the day; the step's own bump (the annual energy moved) came last.
      assert.equal(state.input_version, before + changes + 1, JSON.stringify(state));
      assert.equal(r.day_input_version, state.input_version);
      assert.equal(state.steps.forecast!.version, r.input_version, "the record names it");
      assert.ok(r.generated > 0, "the annual energy moved: the profile values changed");
      const st = staleness(state, "forecast")!;
      assert.equal(st.stale, true);
      assert.match(st.reason!, new RegExp(`this step has ${r.input_version}\\)`));
      assert.deepEqual(plannedSteps(state, await masterDataVersion(writer)).slice(0, 1), [
        "forecast",
      ]);

      // The input is quiet: the next run consumes the day's version and is current.
      const quiet = await generateForecasts(own, DAY, opts());
      const after: DayState = (await readDay(writer, DAY)).value!;
      assert.equal(quiet.input_version, after.input_version);
      assert.equal(quiet.day_input_version, after.input_version);
      assert.equal(staleness(after, "forecast")!.stale, false);
      assert.deepEqual(plannedSteps(after, await masterDataVersion(writer)).slice(0, 1), [
        "aggregate",
      ]);

      // Aggregation under the same stream: a few commits, the aggregate of the version it read.
      const [n0, c0] = [changes, step.counts.commits];
      const agg = await aggregateDay(step.kv, DAY, {
        ...opts(),
        activeAreas: ACTIVE,
      });
      assert.ok(changes - n0 >= 2, `the input changed ${changes - n0} times during aggregation`);
      assert.ok(step.counts.commits - c0 <= 3, `${step.counts.commits - c0} commits`);
      assert.equal(agg.version, after.input_version, "the version it read");
      const aggregated: DayState = (await readDay(writer, DAY)).value!;
      assert.equal(aggregated.steps.aggregated!.version, agg.version);
      assert.equal((await readAggregate(writer, DAY))!.version, agg.version);
      assert.equal(staleness(aggregated, "aggregated")!.stale, true);
    } finally {
      own.close();
      writer.close();
    }
  });
});
