/**
 * Forecasts in, open position out, through the HTTP API on days of 92, 96 and 100 quarter-hours
 * (docs/pipeline.md, "Delivery day", "Aggregation"): a batch ingested, aggregated per active
 * control area, delivered as JSON and as CSV, with one event per step.
 */
import assert from "node:assert/strict";
import { call, startServer, storedEvents } from "../support/app.ts";
import { clockFor, env, ext, flat, post, proc, register } from "../support/pipeline.ts";
import { AREAS, maloId } from "../support/portfolio.ts";

for (
  const [day, n] of [["2026-03-29", 92], ["2026-10-25", 100], ["2026-01-15", 96], [
    "2026-07-01",
    96,
  ]] as const
) {
  Deno.test(`ingest and aggregate ${day} (${n} quarter-hours)`, async () => {
    const s = await startServer(env, { clock: clockFor(day) });
    try {
      await register(s, maloId(1), { control_area: AREAS.amprion, direction: "consumption" });
      await register(s, maloId(2), { control_area: AREAS.amprion, direction: "generation" });
      await register(s, maloId(3), { control_area: AREAS.tennet, direction: "consumption" });
      await register(s, maloId(4), { control_area: AREAS.hertz, direction: "consumption" }); // inactive
      const ramp = Array.from({ length: n }, (_, i) => 1000 + i); // kW
      const r = await post(s, {
        forecasts: [
          { market_location_id: maloId(1), delivery_day: day, unit: "kW", values: ramp },
          { market_location_id: maloId(2), delivery_day: day, unit: "kW", values: flat(n, 250) },
          { market_location_id: maloId(3), delivery_day: day, unit: "kW", values: flat(n, 2000) },
          { market_location_id: maloId(4), delivery_day: day, unit: "kW", values: flat(n, 5) },
        ],
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual((r.body as { results: unknown[] }).results, [{
        delivery_day: day,
        changed: 4,
        unchanged: 0,
        input_version: 1,
      }]);
      const agg = await call(`${s.url}/v1/delivery-days/${day}/aggregate`, {
        method: "POST",
        headers: proc,
      });
      assert.equal(agg.status, 200);
      const counts = (agg.body as { counts: Record<string, number> }).counts;
      assert.equal(counts.market_locations, 3);
      assert.equal(counts.inactive_area, 1);
      const op = await call(`${s.url}/v1/delivery-days/${day}/open-position`, { headers: ext });
      const body = op.body as {
        areas: Record<string, number[]>;
        quarter_hours: { start: string; local: string }[];
        version: number;
        stale: boolean;
      };
      assert.equal(body.quarter_hours.length, n);
      assert.deepEqual(Object.keys(body.areas), [AREAS.amprion, AREAS.tennet]);
      assert.equal(body.areas[AREAS.amprion][0], 0.75); // (1000 − 250) kW = 0.75 MW
      assert.equal(body.areas[AREAS.amprion][n - 1], (1000 + n - 1 - 250) / 1000);
      assert.equal(body.areas[AREAS.tennet][5], 2);
      assert.equal(body.version, 1);
      assert.equal(body.stale, false);
      assert.equal(body.quarter_hours[0].local, "00:00");
      const csv = await call(`${s.url}/v1/delivery-days/${day}/open-position`, {
        headers: { ...ext, accept: "text/csv" },
      });
      assert.equal(csv.status, 200);
      const lines = (csv.body as string).trim().split("\r\n");
      assert.equal(lines.length, n + 1);
      assert.equal(
        lines[0],
        `quarter_hour_start_utc,quarter_hour_start_local,${AREAS.amprion},${AREAS.tennet}`,
      );
      assert.match(
        lines[1],
        /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00Z,\d{4}-\d{2}-\d{2}T00:00:00\+0[12]:00,0\.750000,2\.000000$/,
      );
      if (n === 100) {
        const locals = lines.slice(1).map((l) => l.split(",")[1]);
        assert.ok(
          locals.includes("2026-10-25T02:00:00+02:00") &&
            locals.includes("2026-10-25T02:00:00+01:00"),
        );
      }
      const events = (await storedEvents(s.kv)).filter((e) => e.kind !== "api_call");
      assert.deepEqual(events.map((e) => e.kind), ["forecast_received", "positions_aggregated"]);
      // One forecast_received for the whole batch: 4 market locations, this day.
      assert.equal(events[0].delivery_day, day);
      assert.equal((events[0].data as { market_locations: number }).market_locations, 4);
      // The inactive area's market location is counted in the aggregation event.
      assert.deepEqual((events[1].data as { counts: Record<string, number> }).counts, {
        market_locations: 3,
        inactive_area: 1,
        missing_forecast: 0,
        unknown_location: 0,
      });
    } finally {
      await s.close();
    }
  });
}
