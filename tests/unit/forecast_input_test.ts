/**
 * Forecast validation (docs/pipeline.md, "Forecasts"; lib/pipeline/forecast_input.ts) without KV
 * or HTTP: the 422 items (code `ERR_FORECAST_INVALID`) a caller gets for a JSON forecast, a JSON
 * batch and a long-format CSV body — wrong counts on the 92/96/100-quarter-hour days, duplicates,
 * unknown market locations (the registry is the injected `known`), non-finite values, bad headers.
 */
import assert from "node:assert/strict";
import { forecastsFromCsv, forecastsFromJson } from "../../lib/pipeline/forecast_input.ts";
import { csvDay, csvRows, flat } from "../support/forecast_data.ts";
import { issuesOf, where } from "../support/issues.ts";
import { maloId } from "../support/portfolio.ts";

const A = maloId(1);
const B = maloId(2);
const UNKNOWN = maloId(9);
/** Days of 92, 96 and 100 quarter-hours (docs/pipeline.md, "Delivery day"). */
const SPRING = "2026-03-29";
const PLAIN = "2026-11-23";
const AUTUMN = "2026-10-25";
const HEADER = "market_location_id,start,kw";

/** The registry as forecast validation sees it: `A` and `B` are registered. */
const known = (ids: string[]) => Promise.resolve(new Set(ids.filter((id) => id === A || id === B)));
const json = (body: unknown) => forecastsFromJson(body, known);
const csv = (text: string) => forecastsFromCsv(text, known);
const refusedJson = (body: unknown) => issuesOf(json(body), "ERR_FORECAST_INVALID");
const refusedCsv = (text: string) => issuesOf(csv(text), "ERR_FORECAST_INVALID");

const one = (malo: string, day: string, values: number[]) => ({
  market_location_id: malo,
  delivery_day: day,
  unit: "kW",
  values,
});

Deno.test("JSON: one value per quarter-hour of the day is accepted on 92, 96 and 100-quarter-hour days", async () => {
  for (const [day, n] of [[SPRING, 92], [PLAIN, 96], [AUTUMN, 100]] as const) {
    const values = flat(n, 1.5);
    values[0] = 2.25; // values need not be equal
    assert.deepEqual(await json(one(A, day, values)), [{ malo_id: A, delivery_day: day, values }]);
  }
});

Deno.test("JSON: a wrong number of values names the day's count and what came", async () => {
  for (const [day, n, sent] of [[SPRING, 92, 96], [PLAIN, 96, 92], [AUTUMN, 100, 96]] as const) {
    assert.deepEqual(await refusedJson(one(A, day, flat(sent, 1))), [{
      loc: ["body", "values"],
      msg: `delivery day ${day} has ${n} quarter-hours; got ${sent} values`,
      type: "value_error.quarter_hour_count",
      input: sent,
      ctx: { expected: n, actual: sent },
    }]);
  }
});

Deno.test("JSON: an unregistered market location is refused, naming where to register it", async () => {
  assert.deepEqual(await refusedJson(one(UNKNOWN, PLAIN, flat(96, 1))), [{
    loc: ["body", "market_location_id"],
    msg: `market location ${UNKNOWN} is not registered (PUT /v1/market-locations/${UNKNOWN} first)`,
    type: "value_error.unknown_market_location",
    input: UNKNOWN,
    ctx: {},
  }]);
});

Deno.test("JSON: NaN, Infinity and null values are refused per value; the unit must be kW", async () => {
  const values: unknown[] = flat(96, 1);
  values[3] = NaN;
  values[7] = Infinity;
  values[9] = null;
  const items = await refusedJson({ ...one(A, PLAIN, []), values, unit: "MW" });
  assert.deepEqual(where(items), [
    [["body", "unit"], "value_error.enum"],
    [["body", "values", 3], "type_error"],
    [["body", "values", 7], "type_error"],
    [["body", "values", 9], "type_error"],
  ]);
  const v3 = items.find((i) => i.loc[2] === 3)!;
  assert.equal(v3.msg, "each value must be a finite number (kW)");
  assert.ok(Number.isNaN(v3.input), "the offending value is echoed");
});

Deno.test("JSON: an unknown field is named, its value never echoed; a bad MaLo-ID and day are named", async () => {
  const items = await refusedJson({
    ...one("41373559240", "2026-02-30", flat(96, 1)),
    api_key: "pasted-secret-0001",
  });
  assert.deepEqual(where(items), [
    [["body", "market_location_id"], "value_error.malo_id"],
    [["body", "delivery_day"], "value_error"],
    [["body", "api_key"], "extra_forbidden"],
  ]);
  assert.equal(items[2].input, null);
  assert.ok(!JSON.stringify(items).includes("pasted-secret-0001"));
});

Deno.test("JSON: a day not written YYYY-MM-DD is named for its format and as no calendar date", async () => {
  const items = await refusedJson(one(A, "2026-3-29", flat(92, 1)));
  assert.deepEqual(where(items), [
    [["body", "delivery_day"], "value_error.format"],
    [["body", "delivery_day"], "value_error"],
  ]);
});

Deno.test("JSON batch: every problem is listed at its item's index; nothing is accepted", async () => {
  const items = await refusedJson({
    forecasts: [
      one(A, PLAIN, flat(96, 1)), // fine, but the batch is all or nothing
      one(B, SPRING, flat(96, 1)), // 92-quarter-hour day
      one(UNKNOWN, AUTUMN, flat(100, 1)),
    ],
  });
  assert.deepEqual(where(items), [
    [["body", "forecasts", 1, "values"], "value_error.quarter_hour_count"],
    [["body", "forecasts", 2, "market_location_id"], "value_error.unknown_market_location"],
  ]);
  assert.deepEqual(items[0].ctx, { expected: 92, actual: 96 });
});

Deno.test("JSON batch: the same location twice for one day is a duplicate; on two days it is not", async () => {
  const items = await refusedJson({
    forecasts: [one(A, PLAIN, flat(96, 1)), one(B, PLAIN, flat(96, 1)), one(A, PLAIN, flat(96, 2))],
  });
  assert.deepEqual(items, [{
    loc: ["body", "forecasts", 2],
    msg: `market location ${A} appears twice for ${PLAIN} in this request`,
    type: "value_error.duplicate",
    input: `${A}/${PLAIN}`,
    ctx: {},
  }]);
  const ok = await json({ forecasts: [one(A, PLAIN, flat(96, 1)), one(A, SPRING, flat(92, 1))] });
  assert.deepEqual(ok.map((f) => [f.malo_id, f.delivery_day]), [[A, PLAIN], [A, SPRING]]);
});

Deno.test("JSON batch: 1 to 500 forecasts; a schema error is named at its index and field", async () => {
  assert.deepEqual(where(await refusedJson({ forecasts: [] })), [
    [["body", "forecasts"], "value_error.too_small"],
  ]);
  const tooMany = await refusedJson({ forecasts: Array(501).fill(one(A, PLAIN, flat(96, 1))) });
  assert.deepEqual(tooMany.map((i) => [i.loc, i.type, i.ctx]), [
    [["body", "forecasts"], "value_error.too_big", { maximum: 500 }],
  ]);
  const items = await refusedJson({
    forecasts: [one(A, PLAIN, flat(96, 1)), { ...one(A, PLAIN, [1]), unit: "W" }],
  });
  assert.deepEqual(where(items), [[["body", "forecasts", 1, "unit"], "value_error.enum"]]);
});

Deno.test("CSV: a complete day is accepted on 92, 96 and 100-quarter-hour days, values in time order", async () => {
  for (const [day, n] of [[SPRING, 92], [PLAIN, 96], [AUTUMN, 100]] as const) {
    const [f] = await csv(csvDay(A, day, 0.5));
    assert.deepEqual([f.malo_id, f.delivery_day, f.values.length], [A, day, n]);
    assert.ok(f.values.every((v) => v === 0.5), "values taken as sent");
  }
  // Rows in any order, columns in any order: values come out in quarter-hour order.
  const rows = csvRows(A, PLAIN, 0).map((r, i) => r.replace(/,0$/, `,${i}`)).reverse();
  const swapped = rows.map((r) => r.split(",")).map(([m, s, k]) => `${k},${m},${s}`);
  const [f] = await csv(`kw,market_location_id,start\n${swapped.join("\n")}\n`);
  assert.deepEqual(f.values, Array.from({ length: 96 }, (_, i) => i));
});

Deno.test("CSV: missing quarter-hours are counted against the day's own count", async () => {
  const cases = [
    { day: SPRING, rows: csvRows(A, SPRING, 1).slice(0, 91), n: 92, got: 91, note: "1 missing" },
    { day: PLAIN, rows: csvRows(A, PLAIN, 1).slice(1), n: 96, got: 95, note: "1 missing" },
    // The 100-quarter-hour day sent as if it had 96: four missing.
    { day: AUTUMN, rows: csvRows(A, AUTUMN, 1).slice(0, 96), n: 100, got: 96, note: "4 missing" },
  ];
  for (const c of cases) {
    assert.deepEqual(await refusedCsv([HEADER, ...c.rows].join("\n")), [{
      loc: ["body", "market_location_id", A, c.day],
      msg: `delivery day ${c.day} has ${c.n} quarter-hours; got ${c.got} rows for ${A} (${c.note})`,
      type: "value_error.quarter_hour_count",
      input: c.got,
      ctx: { expected: c.n, actual: c.got },
    }]);
  }
});

Deno.test("CSV: a quarter-hour sent twice is refused, also when the count comes out right", async () => {
  const rows = csvRows(A, PLAIN, 1);
  const extra = await refusedCsv([HEADER, ...rows, rows[5]].join("\n"));
  assert.equal(
    extra[0].msg,
    `delivery day ${PLAIN} has 96 quarter-hours; got 97 rows for ${A} (0 missing, duplicates present)`,
  );
  // Row 7 replaced by a second row 6: 96 rows, one quarter-hour missing, one twice.
  const swapped = await refusedCsv(
    [HEADER, ...rows.slice(0, 6), rows[5], ...rows.slice(7)].join("\n"),
  );
  assert.deepEqual(swapped.map((i) => [i.msg, i.ctx]), [[
    `delivery day ${PLAIN} has 96 quarter-hours; got 96 rows for ${A} (1 missing, duplicates present)`,
    { expected: 96, actual: 96 },
  ]]);
});

Deno.test("CSV: an unregistered market location is named at its first row", async () => {
  const body = [HEADER, ...csvRows(A, PLAIN, 1), ...csvRows(UNKNOWN, PLAIN, 1)].join("\n");
  assert.deepEqual(where(await refusedCsv(body)), [
    [["body", "row", 97, "market_location_id"], "value_error.unknown_market_location"],
  ]);
});

Deno.test("CSV: a bad cell is named by its 1-based data row and column", async () => {
  const rows = csvRows(A, PLAIN, 1);
  const bad = [...rows];
  bad[0] = `${A},2026-11-23T00:00:00+01:00,NaN`;
  bad[1] = `${A},2026-11-23T00:15:00+01:00,`;
  bad[2] = `${A},2026-11-23T00:37:00+01:00,1`;
  bad[3] = `${A},2026-11-23T00:45:00,1`;
  bad[4] = `41373559240,2026-11-23T01:00:00+01:00,1`;
  bad[5] = `${A},2026-11-23T01:15:00+01:00,1e999`;
  assert.deepEqual(where(await refusedCsv([HEADER, ...bad].join("\n"))), [
    [["body", "row", 1, "kw"], "value_error.number"],
    [["body", "row", 2, "kw"], "value_error.number"],
    [["body", "row", 3, "start"], "value_error.misaligned"],
    [["body", "row", 4, "start"], "value_error.datetime"],
    [["body", "row", 5, "market_location_id"], "value_error.malo_id"],
    [["body", "row", 6, "kw"], "value_error.number"],
  ]);
});

Deno.test("CSV: the header must be exactly market_location_id,start,kw, followed by data", async () => {
  const cells = [A, "2026-11-23T00:00:00+01:00", "1", "x"];
  const row = cells.slice(0, 3).join(",");
  for (
    const header of [
      `${HEADER},comment`,
      "market_location_id,start",
      "malo,start,kw",
      "market_location_id,start,start",
    ]
  ) {
    // As many cells as the header has columns (else it is not CSV at all; below).
    const body = `${header}\n${cells.slice(0, header.split(",").length).join(",")}\n`;
    assert.deepEqual(await refusedCsv(body), [{
      loc: ["body", "header"],
      msg: "expected the header market_location_id,start,kw (each once, no other columns)",
      type: "value_error.csv_header",
      input: header,
      ctx: { expected: HEADER },
    }], header);
  }
  assert.deepEqual((await refusedCsv(`${HEADER}\n`)).map((i) => i.msg), [
    "no data rows after the header",
  ]);
  const broken = await refusedCsv(`${HEADER}\n"${row}\n`);
  assert.deepEqual(where(broken), [[["body"], "csv_invalid"]]);
});

Deno.test("sign rule: a negative value is refused for JSON and CSV, at the value, in words", async () => {
  const values = flat(96, 1);
  values[7] = -0.5;
  const items = await refusedJson(one(A, PLAIN, values));
  assert.equal(items.length, 1);
  assert.deepEqual([items[0].loc, items[0].type, items[0].input], [
    ["body", "values", 7],
    "value_error.too_small",
    -0.5,
  ]);
  assert.match(items[0].msg, /kW of consumption .* or of feed-in .*, never negative/);
  const rows = csvRows(A, PLAIN, 1);
  rows[3] = rows[3].replace(/,1$/, ",-2");
  const csvItems = await refusedCsv([HEADER, ...rows].join("\n"));
  assert.equal(csvItems.length, 1);
  assert.deepEqual([csvItems[0].loc, csvItems[0].input], [["body", "row", 4, "kw"], "-2"]);
  assert.match(csvItems[0].msg, /never negative/);
});

Deno.test("values: every bad value of an array is named at once, a non-array in words; the accepted array is the body's own", async () => {
  const values: unknown[] = flat(96, 1);
  values[2] = "x";
  values[5] = -1;
  values[8] = null;
  const items = await refusedJson({ ...one(A, PLAIN, []), values });
  assert.deepEqual(items.map((i) => [i.loc, i.type]), [
    [["body", "values", 2], "type_error"],
    [["body", "values", 5], "value_error.too_small"],
    [["body", "values", 8], "type_error"],
  ]);
  const notArray = await refusedJson({ ...one(A, PLAIN, []), values: "96 values" });
  assert.deepEqual([notArray[0].loc, notArray[0].type, notArray[0].ctx], [
    ["body", "values"],
    "type_error",
    { expected: "array" },
  ]);
  const body = one(A, PLAIN, flat(96, 2));
  const [item] = await json(body);
  assert.equal(item.values, body.values, "no copy is made of the values");
});

Deno.test("values: the API description still says an array of numbers, never negative", async () => {
  const { z } = await import("zod");
  const { ForecastJson } = await import("../../lib/pipeline/forecast_input.ts");
  const schema = z.toJSONSchema(ForecastJson, {
    io: "input",
    unrepresentable: "any",
  }) as unknown as {
    properties: { values: Record<string, unknown> };
  };
  assert.equal(schema.properties.values.type, "array");
  assert.deepEqual(schema.properties.values.items, { type: "number", minimum: 0 });
});
