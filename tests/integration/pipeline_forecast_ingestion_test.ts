/**
 * Forecast ingestion through the HTTP API (docs/pipeline.md, "Forecasts"): every 422 case names
 * the item and the field, a batch is all or nothing, and the long CSV format on the
 * 100-quarter-hour day. The validation rules alone: tests/unit/forecast_input_test.ts.
 */
import assert from "node:assert/strict";
import { startServer, storedEvents } from "../support/app.ts";
import {
  clockFor,
  csvDay,
  env,
  ext,
  flat,
  type Item,
  post,
  register,
} from "../support/pipeline.ts";
import { AREAS, maloId } from "../support/portfolio.ts";

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
    // A batch over two days, one of them over (its last quarter-hour started): 409, nothing stored.
    const past = "2026-11-20";
    const mixed = await post(s, {
      forecasts: [ok, { ...ok, delivery_day: past }],
    });
    assert.equal(mixed.status, 409);
    assert.match(
      (mixed.body as { detail: string }).detail,
      /Delivery day 2026-11-20 is over for forecasts: its last quarter-hour started at 2026-11-20T22:45:00Z \(23:45 Berlin/,
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
