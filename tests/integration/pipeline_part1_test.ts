/**
 * Day-ahead pipeline part 1 through the HTTP API: forecast ingestion (JSON and CSV), 422/409
 * refusals, idempotency, staleness, aggregation, open position, clock-change days. Master data
 * and path validation: `pipeline_master_data_test.ts`.
 */
import assert from "node:assert/strict";
import { forecastValues, type StoredForecast } from "../../lib/pipeline/forecasts.ts";
import { call, startServer, storedEvents } from "../support/app.ts";
import {
  clockFor,
  csvDay,
  env,
  ext,
  flat,
  type Item,
  post,
  proc,
  register,
} from "../support/pipeline.ts";
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

Deno.test("forecast ingestion: every 422 case names the item and field; a batch is all or nothing", async () => {
  const day = "2026-11-23";
  const s = await startServer(env, { clock: clockFor(day) });
  try {
    await register(s, maloId(1), { control_area: AREAS.amprion, direction: "consumption" });
    const ok = {
      market_location_id: maloId(1),
      delivery_day: day,
      unit: "kW",
      values: flat(96, 1),
    };
    const cases: {
      body: unknown;
      loc: unknown[];
      type: string;
      headers?: Record<string, string>;
    }[] = [
      {
        body: { forecasts: [ok, { ...ok, market_location_id: maloId(9) }] },
        loc: ["body", "forecasts", 1, "market_location_id"],
        type: "value_error.unknown_market_location",
      },
      {
        body: { forecasts: [{ ...ok, values: flat(95, 1) }] },
        loc: ["body", "forecasts", 0, "values"],
        type: "value_error.quarter_hour_count",
      },
      {
        body: `{"market_location_id":"${
          maloId(1)
        }","delivery_day":"${day}","unit":"kW","values":[1e400${",1".repeat(95)}]}`,
        loc: ["body", "values", 0],
        type: "type_error",
      },
      {
        body: { ...ok, values: [null, ...flat(95, 1)] },
        loc: ["body", "values", 0],
        type: "type_error",
      },
      { body: { ...ok, unit: "MW" }, loc: ["body", "unit"], type: "value_error.enum" },
      {
        body: { ...ok, delivery_day: "2026-02-30" },
        loc: ["body", "delivery_day"],
        type: "value_error",
      },
      {
        body: { ...ok, market_location_id: "41373559240" },
        loc: ["body", "market_location_id"],
        type: "value_error.malo_id",
      },
      {
        body: { forecasts: [ok, ok] },
        loc: ["body", "forecasts", 1],
        type: "value_error.duplicate",
      },
      {
        body: `market_location_id,start,kw\n${maloId(1)},2026-11-23T00:07:00+01:00,5\n`,
        loc: ["body", "row", 1, "start"],
        type: "value_error.misaligned",
        headers: { ...ext, "content-type": "text/csv" },
      },
      {
        body: `market_location_id,start,kw\n${maloId(1)},2026-11-23T00:00:00+01:00,abc\n`,
        loc: ["body", "row", 1, "kw"],
        type: "value_error.number",
        headers: { ...ext, "content-type": "text/csv" },
      },
      {
        body: `market_location_id,start,kw\n${maloId(1)},2026-11-23T00:00:00+01:00,5\n`,
        loc: ["body", "market_location_id", maloId(1), day],
        type: "value_error.quarter_hour_count",
        headers: { ...ext, "content-type": "text/csv" },
      },
      {
        body: `market_location_id,start,kw\n${maloId(1)},2026-11-23T00:00:00+01:00,Infinity\n`,
        loc: ["body", "row", 1, "kw"],
        type: "value_error.number",
        headers: { ...ext, "content-type": "text/csv" },
      },
      {
        body: `market_location_id,start,kw\n${maloId(1)},2026-11-23T00:00:00,5\n`,
        loc: ["body", "row", 1, "start"],
        type: "value_error.datetime",
        headers: { ...ext, "content-type": "text/csv" },
      },
      {
        // A complete day for a market location nobody registered: the row that names it.
        body: csvDay(maloId(9), day, 3),
        loc: ["body", "row", 1, "market_location_id"],
        type: "value_error.unknown_market_location",
        headers: { ...ext, "content-type": "text/csv" },
      },
      {
        body: `market_location_id,start,kw,comment\n${maloId(1)},2026-11-23T00:00:00+01:00,5,x\n`,
        loc: ["body", "header"],
        type: "value_error.csv_header",
        headers: { ...ext, "content-type": "text/csv" },
      },
      {
        body: `market_location_id,start,kw\n"${maloId(1)},2026-11-23T00:00:00+01:00,5\n`,
        loc: ["body"],
        type: "csv_invalid",
        headers: { ...ext, "content-type": "text/csv" },
      },
      {
        body: `{"market_location_id": "${maloId(1)}", `,
        loc: ["body"],
        type: "json_invalid",
      },
    ];
    for (const c of cases) {
      const r = await post(s, c.body, c.headers);
      assert.equal(r.status, 422, JSON.stringify(c.body).slice(0, 120));
      const items = (r.body as { detail: Item[] }).detail;
      const hit = items.find((i) => JSON.stringify(i.loc) === JSON.stringify(c.loc));
      assert.ok(hit, `expected loc ${JSON.stringify(c.loc)} in ${JSON.stringify(items)}`);
      assert.equal(hit.type, c.type);
      assert.equal(typeof hit.msg, "string");
      assert.ok("input" in hit && typeof hit.ctx === "object");
    }
    // A Content-Type that is neither JSON nor CSV: 415 with a sentence, not a guess.
    const plain = await post(s, ok, { ...ext, "content-type": "text/plain" });
    assert.equal(plain.status, 415);
    assert.match(
      (plain.body as { detail: string }).detail,
      /Content-Type text\/plain is not accepted here; send application\/json .* or text\/csv/,
    );
    // A batch over two days, one of them past gate closure: 409, nothing of it stored.
    const past = "2026-11-21";
    const mixed = await post(s, {
      forecasts: [ok, { ...ok, delivery_day: past }],
    });
    assert.equal(mixed.status, 409);
    assert.match(
      (mixed.body as { detail: string }).detail,
      /Gate closure for delivery day 2026-11-21 was 2026-11-20T11:00:00Z/,
    );
    // Nothing was stored by any refused request, not even the valid first item of a batch.
    const state = await s.kv.get(["days", day]);
    assert.equal(state.value, null);
    assert.equal((await s.kv.get(["forecasts", day, maloId(1)])).value, null);
    assert.equal(
      (await storedEvents(s.kv)).filter((e) => e.kind === "forecast_received").length,
      0,
    );
  } finally {
    await s.close();
  }
});

Deno.test("forecast ingestion: CSV long format on the 100-quarter-hour day", async () => {
  const day = "2026-10-25";
  const s = await startServer(env, { clock: clockFor(day) });
  try {
    await register(s, maloId(1), { control_area: AREAS.amprion, direction: "consumption" });
    const start = Temporal.Instant.from("2026-10-24T22:00:00Z");
    const rows = Array.from({ length: 100 }, (_, i) => {
      const t = start.add({ minutes: 15 * i }).toZonedDateTimeISO("Europe/Berlin");
      return `${maloId(1)},${t.toString({ timeZoneName: "never" })},${i}.5`;
    });
    const r = await post(s, `market_location_id,start,kw\n${rows.join("\n")}\n`, {
      ...ext,
      "content-type": "text/csv",
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const stored = (await s.kv.get<{ values: number[] }>(["forecasts", day, maloId(1)])).value!;
    assert.equal(stored.values.length, 100);
    assert.equal(stored.values[99], 99.5);
    // Both 02:00 rows kept, in time order: CEST (index 8) before CET (index 12).
    assert.equal(stored.values[8], 8.5);
    assert.equal(stored.values[12], 12.5);
    const received = (await storedEvents(s.kv)).filter((e) => e.kind === "forecast_received");
    assert.equal(received.length, 1);
    assert.equal(received[0].delivery_day, day);
    assert.deepEqual(
      received[0].data as { market_locations: number; format: string },
      {
        market_locations: 1,
        format: "csv",
        results: [{ delivery_day: day, changed: 1, unchanged: 0, input_version: 1 }],
      },
    );
  } finally {
    await s.close();
  }
});

Deno.test("gate closure: 409 with the instant; idempotent re-post; newer forecast makes steps stale", async () => {
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
      /^newer forecast for 1 market location at \d{2}:\d{2}/,
    );
    clock.set(Date.parse("2026-11-22T11:00:00Z")); // 12:00 Berlin, gate closure
    const late = await post(s, { ...f, values: flat(96, 12) });
    assert.equal(late.status, 409);
    assert.match(
      (late.body as { detail: string }).detail,
      /Gate closure for delivery day 2026-11-23 was 2026-11-22T11:00:00Z/,
    );
    assert.equal(
      (await s.kv.get<{ values: number[] }>(["forecasts", day, maloId(1)])).value!.values[0],
      11,
    );
    // One forecast_received per accepted request (the identical re-post included), none for 409.
    const received = (await storedEvents(s.kv)).filter((e) => e.kind === "forecast_received");
    assert.equal(received.length, 3);
    assert.deepEqual(
      received.map((e) => (e.data as { results: { changed: number }[] }).results[0].changed),
      [1, 0, 1],
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

      const h0Stored = (await s.kv.get<StoredForecast>(["forecasts", day, maloId(1)])).value!;
      assert.equal(h0Stored.source, "generated");
      const h0 = { values: forecastValues(h0Stored, day) };
      assert.equal(h0.values.length, n);
      const expected = generateProfileForecast("H0", 4000, day, "DE").map((v) =>
        Math.round(v * 1000) / 1000
      );
      assert.deepEqual(h0.values, expected);
      assert.equal(
        (await s.kv.get<{ source: string }>(["forecasts", day, maloId(3)])).value!.source,
        "customer",
      );

      await call(`${s.url}/v1/delivery-days/${day}/aggregate`, { method: "POST", headers: proc });
      const op = await call(`${s.url}/v1/delivery-days/${day}/open-position`, { headers: ext });
      const areas = (op.body as { areas: Record<string, number[]> }).areas;
      assert.equal(areas[AREAS.amprion].length, n);
      assert.equal(areas[AREAS.tennet][0], 0.007);
      const g0 = forecastValues(
        (await s.kv.get<StoredForecast>(["forecasts", day, maloId(2)])).value!,
        day,
      );
      const i = Math.floor(n / 2);
      assert.ok(Math.abs(areas[AREAS.amprion][i] - (h0.values[i] + g0[i]) / 1000) < 1e-6);
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
