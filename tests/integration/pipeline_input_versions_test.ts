/**
 * How accepted forecasts move a day's input version through the HTTP API (docs/pipeline.md,
 * "Day state and staleness", "Gate closure"): an identical re-post changes nothing, a newer
 * forecast makes the aggregate stale, the day's last quarter-hour refuses; 200 concurrent posts give 200
 * versions and an aggregate that is their sum.
 */
import assert from "node:assert/strict";
import { call, startServer, storedEvents } from "../support/app.ts";
import { clockFor, env, ext, flat, post, proc, register } from "../support/pipeline.ts";
import { AREAS, maloId } from "../support/portfolio.ts";

Deno.test("forecasts until the last quarter-hour: 409 with the instant; idempotent re-post; newer forecast makes steps stale", async () => {
  const day = "2026-11-23";
  const clock = clockFor(day);
  const s = await startServer(env, { clock });
  try {
    await register(s, maloId(1), { control_area: AREAS.amprion, direction: "consumption" });
    const f = {
      market_location_id: maloId(1),
      delivery_day: day,
      unit: "kW",
      values: flat(96, 10),
    };
    assert.equal((await post(s, f)).status, 200);
    const same = await post(s, f);
    assert.deepEqual((same.body as { results: unknown[] }).results, [{
      delivery_day: day,
      changed: 0,
      unchanged: 1,
      input_version: 1,
    }]);
    await call(`${s.url}/v1/delivery-days/${day}/aggregate`, { method: "POST", headers: proc });
    clock.advance(3_600_000);
    const newer = await post(s, { ...f, values: flat(96, 11) });
    assert.equal(
      (newer.body as { results: { input_version: number }[] }).results[0].input_version,
      2,
    );
    const ov = await call(`${s.url}/v1/console/delivery-days`, { headers: proc });
    const entry = (ov.body as {
      delivery_days: { steps: { aggregated: { stale: boolean; stale_reason: string } } }[];
    }).delivery_days[0];
    assert.equal(entry.steps.aggregated.stale, true);
    assert.match(
      entry.steps.aggregated.stale_reason,
      /^newer forecast for 1 market location at \d{2}:\d{2} Berlin/,
    );
    // Gate closure (12:00 Berlin the day before) ends the market submission, not the forecasts:
    // they are accepted until the day's last quarter-hour has started (docs/intraday.md).
    clock.set(Date.parse("2026-11-22T11:00:00Z"));
    assert.equal((await post(s, { ...f, values: flat(96, 12) })).status, 200);
    clock.set(Date.parse("2026-11-23T22:44:59Z")); // 23:44:59 Berlin on the day
    assert.equal((await post(s, { ...f, values: flat(96, 13) })).status, 200);
    clock.set(Date.parse("2026-11-23T22:45:00Z")); // 23:45 Berlin: the last quarter-hour started
    const late = await post(s, { ...f, values: flat(96, 14) });
    assert.equal(late.status, 409);
    assert.match(
      (late.body as { detail: string }).detail,
      /Delivery day 2026-11-23 is over for forecasts: its last quarter-hour started at 2026-11-23T22:45:00Z \(23:45 Berlin \(\+01:00\)\); forecasts are no longer accepted/,
    );
    assert.equal(
      (await s.kv.get<{ values: number[] }>(["forecasts", day, maloId(1)])).value!.values[0],
      13,
    );
    // One forecast_received per accepted request (the identical re-post included), none for 409.
    const received = (await storedEvents(s.kv)).filter((e) => e.kind === "forecast_received");
    assert.equal(received.length, 5);
    assert.deepEqual(
      received.map((e) => (e.data as { results: { changed: number }[] }).results[0].changed),
      [1, 0, 1, 1, 1],
    );
  } finally {
    await s.close();
  }
});

Deno.test("200 concurrent forecast posts for one day → input version 200, aggregate = sum", async () => {
  const day = "2026-11-23";
  const s = await startServer(env, { clock: clockFor(day) });
  try {
    for (let i = 1; i <= 200; i++) {
      await s.bridge.ctx.kv.set(["market_locations", maloId(i)], {
        malo_id: maloId(i),
        control_area: AREAS.amprion,
        direction: "consumption",
        updated_at: "",
      });
    }
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        post(s, {
          market_location_id: maloId(i + 1),
          delivery_day: day,
          unit: "kW",
          values: flat(96, i + 1),
        })),
    );
    assert.ok(results.every((r) => r.status === 200));
    const state = (await s.kv.get<{ input_version: number }>(["days", day])).value!;
    assert.equal(state.input_version, 200);
    await call(`${s.url}/v1/delivery-days/${day}/aggregate`, { method: "POST", headers: proc });
    const op = await call(`${s.url}/v1/delivery-days/${day}/open-position`, { headers: ext });
    const mw = (op.body as { areas: Record<string, number[]> }).areas[AREAS.amprion];
    assert.ok(mw.every((v) => v === (200 * 201) / 2 / 1000)); // Σ 1..200 kW = 20.1 MW
  } finally {
    await s.close();
  }
});
