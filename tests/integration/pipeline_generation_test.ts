/**
 * The forecast step through the HTTP API (docs/domain.md, "Standard load profiles",
 * "Forecasts"): BDEW profile forecasts for every real quarter-hour of the clock-change days and
 * Christmas, idempotent, never over a customer forecast; the aggregate adds them up. Nothing is
 * stored per profile location: the only forecast record of the day is the customer's.
 */
import assert from "node:assert/strict";
import { call, startServer, storedEvents } from "../support/app.ts";
import { clockFor, env, ext, flat, post, proc, register } from "../support/pipeline.ts";
import { AREAS, maloId } from "../support/portfolio.ts";

for (const [day, n] of [["2026-03-29", 92], ["2026-10-25", 100], ["2026-12-25", 96]] as const) {
  Deno.test(`generation on ${day}: BDEW values for every real quarter-hour; a customer forecast wins`, async () => {
    const { generateProfileForecast } = await import("../../lib/domain/slp/profile.ts");
    const s = await startServer(env, { clock: clockFor(day) });
    try {
      await register(s, maloId(1), {
        control_area: AREAS.amprion,
        direction: "consumption",
        standard_load_profile: "H0",
        annual_kwh: 4000,
      });
      await register(s, maloId(2), {
        control_area: AREAS.amprion,
        direction: "consumption",
        standard_load_profile: "G0",
        annual_kwh: 100000,
      });
      await register(s, maloId(3), {
        control_area: AREAS.tennet,
        direction: "consumption",
        standard_load_profile: "H25",
        annual_kwh: 3000,
      });
      // The customer's own forecast for location 3 must not be overwritten by its profile.
      assert.equal(
        (await post(s, {
          market_location_id: maloId(3),
          delivery_day: day,
          unit: "kW",
          values: flat(n, 7),
        })).status,
        200,
      );
      const gen = await call(`${s.url}/v1/delivery-days/${day}/forecast`, {
        method: "POST",
        headers: proc,
      });
      assert.equal(gen.status, 200, JSON.stringify(gen.body));
      const g = gen.body as { generated: number; customer: number; input_version: number };
      assert.equal(g.generated, 2);
      assert.equal(g.customer, 1);
      assert.equal(g.input_version, 2);
      const again = await call(`${s.url}/v1/delivery-days/${day}/forecast`, {
        method: "POST",
        headers: proc,
      });
      assert.equal(
        (again.body as { generated: number; unchanged: number }).unchanged,
        2,
        "generation is idempotent",
      );
      assert.equal((again.body as { input_version: number }).input_version, 2);

      const stored: unknown[] = [];
      for await (const e of s.kv.list({ prefix: ["forecasts", day] })) stored.push(e.key[2]);
      assert.deepEqual(stored, [maloId(3)], "only the customer's forecast is stored");
      const h0 = { values: generateProfileForecast("H0", 4000, day, "DE") };
      assert.equal(h0.values.length, n);

      await call(`${s.url}/v1/delivery-days/${day}/aggregate`, { method: "POST", headers: proc });
      const op = await call(`${s.url}/v1/delivery-days/${day}/open-position`, { headers: ext });
      const areas = (op.body as { areas: Record<string, number[]> }).areas;
      assert.equal(areas[AREAS.amprion].length, n);
      assert.equal(areas[AREAS.tennet][0], 0.007);
      const g0 = generateProfileForecast("G0", 100000, day, "DE");
      for (let i = 0; i < n; i++) {
        const want = Math.round((h0.values[i] + g0[i]) * 1000) / 1e6; // kW → MW, 1 W steps
        assert.ok(
          Math.abs(areas[AREAS.amprion][i] - want) < 1.5e-6,
          `${i}: ${areas[AREAS.amprion][i]} ≠ ${want}`,
        );
      }
      const kinds = (await storedEvents(s.kv)).map((e) => e.kind).filter((k) => k !== "api_call");
      assert.deepEqual(kinds, [
        "forecast_received",
        "forecasts_generated",
        "forecasts_generated",
        "positions_aggregated",
      ]);
    } finally {
      await s.close();
    }
  });
}
