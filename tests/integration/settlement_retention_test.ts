/**
 * Actuals, balancing-group sums and reBAP prices follow the retention rules (docs/retention.md,
 * docs/settlement.md): an expired day's actuals go to `actuals-0001.csv` of its archive, its sums
 * and prices to `records.jsonl`, the manifest counts them, and none of them is left in the store.
 */
import assert from "node:assert/strict";
import { FakeClock } from "../../lib/clock.ts";
import { addDays, deliveryDay } from "../../lib/domain/delivery_day.ts";
import { Pruner } from "../../lib/retention/pruner.ts";
import { storeActuals } from "../../lib/settlement/actuals_store.ts";
import { storePrices } from "../../lib/settlement/prices_store.ts";
import { startServer } from "../support/app.ts";
import {
  checkedManifest,
  fastTempDir,
  LOCATIONS,
  registerPortfolio,
  retentionEnv,
  simulateDay,
} from "../support/retention_sim.ts";

Deno.test("retention: an expired day's actuals, sums and prices are archived, then leave the store", async () => {
  await using tmp = await fastTempDir("retention-settlement-");
  const clock = new FakeClock(Date.parse("2024-02-20T08:00:00Z"));
  const s = await startServer(retentionEnv(tmp.path, 30), { clock });
  try {
    const day = "2024-03-01";
    await registerPortfolio(s);
    await simulateDay(s, clock, day);
    const start = deliveryDay(day).start.epochMilliseconds;
    await storeActuals(
      s.kv,
      [
        {
          owner: { kind: "market_location", malo_id: LOCATIONS[0] },
          start,
          kwh: [1.5, 2.5],
          where: "t",
        },
        {
          owner: {
            kind: "balancing_group_sum",
            balancing_group: "11XDE-EXAMPLE--H",
            balancing_area: "11YDE-BA-TEST--1",
          },
          start,
          kwh: [9],
          where: "t",
        },
      ],
      "test",
      clock.now(),
    );
    await storePrices(s.kv, [{ start, short: 12.5, long: 10 }], "rebap", "test", clock.now());
    clock.set(deliveryDay(addDays(day, 40)).start.epochMilliseconds);
    const r = await new Pruner(s.bridge.ctx, { budgetMs: 10_000 }).run("test");
    assert.equal(r.error, undefined);
    assert.deepEqual(r.days_pruned, [day]);
    const m = await checkedManifest(`${tmp.path}/archive`, day);
    assert.deepEqual(
      [m.counts.actuals, m.counts.balancing_group_sums, m.counts.imbalance_prices],
      [1, 1, 1],
    );
    const folder = `${tmp.path}/archive/${day.replaceAll("-", "/")}`;
    const csv = (await Deno.readTextFile(`${folder}/actuals-0001.csv`)).trim().split("\n");
    assert.equal(csv.length, 2);
    assert.match(csv[0], /^malo_id,updated_at,source,2024-02-29T23:00:00Z,2024-02-29T23:15:00Z,/);
    assert.match(csv[1], new RegExp(`^${LOCATIONS[0]},[^,]+,test,1\\.5,2\\.5,,`));
    const records = await Deno.readTextFile(`${folder}/records.jsonl`);
    assert.match(records, /"balancing_group_sums","2024-03-01","11XDE-EXAMPLE--H"/);
    assert.match(records, /"imbalance_prices","2024-03-01"\]/);
    for (const p of ["actuals", "balancing_group_sums", "imbalance_prices"]) {
      let n = 0;
      for await (const _ of s.kv.list({ prefix: [p] })) n++;
      assert.equal(n, 0, p);
    }
  } finally {
    await s.close();
  }
});
