/**
 * Weather follows the retention rules (docs/retention.md, docs/weather.md "Storage"): an expired
 * delivery day's weather versions and its latest record go to `records.jsonl` of the day's
 * archive (values as arrays, `null` where a quarter-hour had none), the manifest counts them, and
 * they leave the store; a later day's weather stays.
 */
import assert from "node:assert/strict";
import { FakeClock } from "../../lib/clock.ts";
import { addDays, deliveryDay } from "../../lib/domain/delivery_day.ts";
import { Pruner } from "../../lib/retention/pruner.ts";
import { importWeather } from "../../lib/weather/import.ts";
import { startServer } from "../support/app.ts";
import {
  checkedManifest,
  fastTempDir,
  registerPortfolio,
  retentionEnv,
  simulateDay,
} from "../support/retention_sim.ts";

Deno.test("retention: an expired day's weather is archived, then leaves the store", async () => {
  await using tmp = await fastTempDir("retention-weather-");
  const clock = new FakeClock(Date.parse("2024-02-20T08:00:00Z"));
  const s = await startServer(retentionEnv(tmp.path, 30), { clock });
  try {
    const day = "2024-03-01";
    await registerPortfolio(s);
    await simulateDay(s, clock, day);
    // Two deliveries for 1 March (23:00Z on 29 Feb is its first quarter-hour), one for 21 March (not expired).
    const csv = (ghi: number, hours: string[]) =>
      "point_id,start,temperature_c,ghi_w_m2,wind_speed_m_s\n" +
      hours.map((h) => `P1,${h},3,${ghi},4\n`).join("");
    await importWeather(s.bridge.ctx, "csv", csv(10, ["2024-02-29T23:00:00Z"]), "t", "t");
    clock.advance(60_000);
    await importWeather(s.bridge.ctx, "csv", csv(20, ["2024-02-29T23:00:00Z"]), "t", "t");
    await importWeather(s.bridge.ctx, "csv", csv(30, ["2024-03-20T23:00:00Z"]), "t", "t");
    clock.set(deliveryDay(addDays(day, 40)).start.epochMilliseconds);
    const r = await new Pruner(s.bridge.ctx, { budgetMs: 10_000 }).run("test");
    assert.equal(r.error, undefined);
    assert.ok(r.days_pruned.includes(day), JSON.stringify(r.days_pruned));
    const m = await checkedManifest(`${tmp.path}/archive`, day);
    assert.deepEqual([m.counts.weather, m.counts.weather_latest], [2, 1]);
    const folder = `${tmp.path}/archive/${day.replaceAll("-", "/")}`;
    const lines = (await Deno.readTextFile(`${folder}/records.jsonl`)).trim().split("\n")
      .map((l) => JSON.parse(l)).filter((l) => String(l.key[0]).startsWith("weather"));
    assert.equal(lines.length, 3);
    const newest = lines.find((l) => l.key[0] === "weather_latest")!;
    assert.deepEqual(newest.key, ["weather_latest", day, "P1"]);
    assert.deepEqual(newest.value.values.ghi_w_m2.slice(0, 5), [20, 20, 20, 20, null]);
    const kept: string[] = [];
    for await (const e of s.kv.list({ prefix: ["weather"] })) kept.push(String(e.key[1]));
    assert.ok(!kept.includes(day) && kept.includes("2024-03-21"), kept.join());
  } finally {
    await s.close();
  }
});
