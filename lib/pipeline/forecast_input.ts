/**
 * Validation of forecast uploads (docs/pipeline.md, "Forecasts") into {@link ForecastItem}s, with 422 items (docs/architecture.md, "Errors")
 * that name the item and the field.
 *
 * JSON: one forecast `{market_location_id, delivery_day, unit: "kW", values: [...]}` or a batch
 * `{forecasts: [...]}`; `values` has one average kW per quarter-hour of the day (92/96/100).
 * CSV (`text/csv`): long format with header `market_location_id,start,kw`, `start` ISO-8601 with
 * offset (e.g. `2026-11-23T00:00:00+01:00`); rows are grouped by market location and local day,
 * and each group must cover every quarter-hour of that day exactly once.
 * @module
 */
import { parse } from "csv-parse/sync";
import { z } from "zod";
import { type DeliveryDay, deliveryDay, localDayOf } from "../domain/delivery_day.ts";
import { type InputIssue, InvalidInput } from "../domain/errors.ts";
import { zodIssuesToItems } from "../domain/issues.ts";
import { type ForecastItem, MAX_BATCH } from "./forecasts.ts";
import { MaloId } from "../wire/market_locations.ts";

const Day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "expected a date YYYY-MM-DD").check((ctx) => {
  // A check, not a refinement: run for every forecast of a batch, and cheaper (deliveryDay is
  // memoized; a refinement's context costs an allocation each time). Its issues as a refinement's.
  try {
    deliveryDay(ctx.value);
  } catch {
    ctx.issues.push({
      code: "custom",
      input: ctx.value,
      message: "not a calendar date",
      continue: true,
    });
  }
});

/**
 * The sign rule (docs/pipeline.md, "Forecasts"): a forecast is kW of consumption for a
 * consumption market location and kW of feed-in for a generation market location — a magnitude,
 * never negative; the direction of the location gives the sign of its part in the open position.
 */
const NEGATIVE_KW =
  "a forecast is kW of consumption (consumption location) or of feed-in (generation location), never negative";

/** One forecast in JSON. */
export const ForecastJson = z.strictObject({
  market_location_id: MaloId,
  delivery_day: Day,
  unit: z.literal("kW", { error: 'unit must be "kW" (average power per quarter-hour)' }),
  // One loop over the array (zod's array type copies it value by value, which costs more than
  // the rest of a forecast's validation together and leaves a boxed copy to collect); the issues
  // are the ones z.array(z.number().min(0)) gives, at the value. The JSON schema is in `meta`.
  values: z.custom<number[]>(() => true).check((ctx) => {
    if (!Array.isArray(ctx.value)) {
      ctx.issues.push({
        code: "invalid_type",
        expected: "array",
        input: ctx.value,
        message: "expected an array of average kW per quarter-hour",
      });
      return;
    }
    const v = ctx.value;
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      if (typeof x !== "number" || !Number.isFinite(x)) {
        ctx.issues.push({
          code: "invalid_type",
          expected: "number",
          path: [i],
          input: x,
          message: "each value must be a finite number (kW)",
        });
      } else if (x < 0) {
        ctx.issues.push({
          code: "too_small",
          origin: "number",
          minimum: 0,
          inclusive: true,
          path: [i],
          input: x,
          message: NEGATIVE_KW,
        });
      }
    }
  }).meta({
    type: "array",
    items: { type: "number", minimum: 0 },
    description:
      "average kW per quarter-hour of the delivery day (92, 96 or 100 values): consumption for a consumption market location, feed-in for a generation market location — never negative",
  }),
});

/** A batch in JSON. */
export const ForecastBatchJson = z.strictObject({
  forecasts: z.array(z.unknown()).min(1, "send at least one forecast").max(
    MAX_BATCH,
    `at most ${MAX_BATCH} forecasts per request`,
  ),
});

/** Request body schema (for the OpenAPI document). */
export const ForecastBody = z.union([ForecastJson, z.object({ forecasts: z.array(ForecastJson) })]);

const QH_MS = 15 * 60 * 1000;

/**
 * Validates a JSON body.
 * @param known returns true for a registered MaLo-ID
 * @throws {InvalidInput} (`ERR_FORECAST_INVALID`) with every problem found
 */
export async function forecastsFromJson(
  body: unknown,
  known: (ids: string[]) => Promise<Set<string>>,
): Promise<ForecastItem[]> {
  const isBatch = typeof body === "object" && body !== null && "forecasts" in body;
  let raw: unknown[];
  let base: (string | number)[];
  if (isBatch) {
    const b = ForecastBatchJson.safeParse(body);
    if (!b.success) {
      throw new InvalidInput(
        zodIssuesToItems("body", b.error.issues, body),
        "ERR_FORECAST_INVALID",
      );
    }
    raw = b.data.forecasts;
    base = ["body", "forecasts"];
  } else {
    raw = [body];
    base = ["body"];
  }
  const items: InputIssue[] = [];
  const parsed: ForecastItem[] = [];
  raw.forEach((f, i) => {
    const r = ForecastJson.safeParse(f);
    if (!r.success) {
      const prefix = isBatch ? [...base, i] : base;
      for (const it of zodIssuesToItems("body", r.error.issues, f)) {
        items.push({ ...it, loc: [...prefix, ...it.loc.slice(1)] });
      }
      return;
    }
    parsed.push({
      malo_id: r.data.market_location_id,
      delivery_day: r.data.delivery_day,
      // The body's own array (checked above): zod's copy is an array of boxed numbers, which
      // serializes into KV several times slower than the packed array JSON.parse made.
      values: (f as { values: number[] }).values,
    });
  });
  if (items.length) throw new InvalidInput(items, "ERR_FORECAST_INVALID");
  await checkSemantics(parsed, (i) => (isBatch ? [...base, i] : base), known);
  return parsed;
}

/** Unknown location, wrong count, duplicates: 422 items. */
async function checkSemantics(
  parsed: ForecastItem[],
  locOf: (i: number) => (string | number)[],
  known: (ids: string[]) => Promise<Set<string>>,
): Promise<void> {
  const items: InputIssue[] = [];
  const registered = await known([...new Set(parsed.map((p) => p.malo_id))]);
  const seenByDay = new Map<string, Set<string>>();
  parsed.forEach((p, i) => {
    if (!registered.has(p.malo_id)) {
      items.push({
        loc: [...locOf(i), "market_location_id"],
        msg:
          `market location ${p.malo_id} is not registered (PUT /v1/market-locations/${p.malo_id} first)`,
        type: "value_error.unknown_market_location",
        input: p.malo_id,
        ctx: {},
      });
    }
    const expected = deliveryDay(p.delivery_day).quarterHours.length;
    if (p.values.length !== expected) {
      items.push({
        loc: [...locOf(i), "values"],
        msg:
          `delivery day ${p.delivery_day} has ${expected} quarter-hours; got ${p.values.length} values`,
        type: "value_error.quarter_hour_count",
        input: p.values.length,
        ctx: { expected, actual: p.values.length },
      });
    }
    let seen = seenByDay.get(p.delivery_day);
    if (!seen) seenByDay.set(p.delivery_day, seen = new Set());
    if (seen.has(p.malo_id)) {
      items.push({
        loc: [...locOf(i)],
        msg: `market location ${p.malo_id} appears twice for ${p.delivery_day} in this request`,
        type: "value_error.duplicate",
        input: `${p.malo_id}/${p.delivery_day}`,
        ctx: {},
      });
    }
    seen.add(p.malo_id);
  });
  if (items.length) throw new InvalidInput(items, "ERR_FORECAST_INVALID");
}

/**
 * Validates a long-format CSV body: a header of exactly the columns `market_location_id`,
 * `start`, `kw` (any order), then one row per quarter-hour. Rows are grouped by market location
 * and local delivery day; each group must cover every quarter-hour of its day exactly once.
 * @param text the body (UTF-8, a leading BOM is ignored; `,` separator, `.` decimal)
 * @param known returns the registered MaLo-IDs among `ids`
 * @throws {InvalidInput} (`ERR_FORECAST_INVALID`) naming the row (1-based data row) and column, or the group
 *   (`["body", "market_location_id", <id>, <day>]`) for a wrong number of quarter-hours
 */
export async function forecastsFromCsv(
  text: string,
  known: (ids: string[]) => Promise<Set<string>>,
): Promise<ForecastItem[]> {
  let table: string[][];
  try {
    table = parse(text, { skip_empty_lines: true, trim: true, bom: true });
  } catch (err) {
    throw new InvalidInput([{
      loc: ["body"],
      msg: `not valid CSV: ${(err as Error).message}`,
      type: "csv_invalid",
      input: text.length > 200 ? text.slice(0, 200) + "…" : text,
      ctx: {},
    }], "ERR_FORECAST_INVALID");
  }
  const [header = [], ...data] = table;
  const want = ["market_location_id", "start", "kw"];
  const col = Object.fromEntries(want.map((h) => [h, header.indexOf(h)])) as Record<
    string,
    number
  >;
  const exact = header.length === want.length && want.every((h) => col[h] >= 0);
  if (!exact || data.length === 0) {
    throw new InvalidInput([{
      loc: ["body", "header"],
      msg: exact
        ? "no data rows after the header"
        : "expected the header market_location_id,start,kw (each once, no other columns)",
      type: "value_error.csv_header",
      input: header.join(","),
      ctx: { expected: want.join(",") },
    }], "ERR_FORECAST_INVALID");
  }
  const rows = data.map((r) => ({
    market_location_id: r[col.market_location_id],
    start: r[col.start],
    kw: r[col.kw],
  }));
  const items: InputIssue[] = [];
  // Local day of an instant: rows of one day reuse its [start, end) instead of a time-zone lookup.
  let lastDay: DeliveryDay | undefined;
  const dayOf = (ms: number): string => {
    if (
      lastDay && ms >= lastDay.start.epochMilliseconds && ms < lastDay.end.epochMilliseconds
    ) return lastDay.day;
    const day = localDayOf(ms);
    lastDay = deliveryDay(day);
    return day;
  };
  const groups = new Map<
    string,
    { malo: string; day: string; firstRow: number; points: [number, number][] }
  >();
  rows.forEach((row, idx) => {
    const loc = (col: string) => ["body", "row", idx + 1, col];
    const malo = MaloId.safeParse(row.market_location_id);
    if (!malo.success) {
      items.push({
        loc: loc("market_location_id"),
        msg: malo.error.issues[0].message,
        type: "value_error.malo_id",
        input: row.market_location_id,
        ctx: {},
      });
      return;
    }
    let ms: number;
    try {
      if (!/(Z|[+-]\d{2}:\d{2})$/.test(row.start)) throw new Error();
      ms = Temporal.Instant.from(row.start).epochMilliseconds;
    } catch {
      items.push({
        loc: loc("start"),
        msg: "expected ISO-8601 with offset, e.g. 2026-11-23T00:00:00+01:00",
        type: "value_error.datetime",
        input: row.start,
        ctx: {},
      });
      return;
    }
    if (ms % QH_MS !== 0) {
      items.push({
        loc: loc("start"),
        msg: "start is not on a quarter-hour boundary (:00, :15, :30, :45)",
        type: "value_error.misaligned",
        input: row.start,
        ctx: {},
      });
      return;
    }
    const kw = Number(row.kw);
    if (row.kw === "" || !Number.isFinite(kw)) {
      items.push({
        loc: loc("kw"),
        msg: "expected a finite number (kW, . as decimal separator)",
        type: "value_error.number",
        input: row.kw,
        ctx: {},
      });
      return;
    }
    if (kw < 0) {
      items.push({
        loc: loc("kw"),
        msg: NEGATIVE_KW,
        type: "value_error.too_small",
        input: row.kw,
        ctx: { minimum: 0 },
      });
      return;
    }
    const day = dayOf(ms);
    const key = `${malo.data}/${day}`;
    const g = groups.get(key) ?? { malo: malo.data, day, firstRow: idx + 1, points: [] };
    g.points.push([ms, kw]);
    groups.set(key, g);
  });
  if (items.length) throw new InvalidInput(items, "ERR_FORECAST_INVALID");
  if (groups.size > MAX_BATCH) {
    throw new InvalidInput([{
      loc: ["body"],
      msg: `at most ${MAX_BATCH} forecasts (market location × day) per request`,
      type: "value_error.too_big",
      input: groups.size,
      ctx: { maximum: MAX_BATCH },
    }], "ERR_FORECAST_INVALID");
  }
  const registered = await known([...new Set([...groups.values()].map((g) => g.malo))]);
  const out: ForecastItem[] = [];
  for (const g of groups.values()) {
    if (!registered.has(g.malo)) {
      items.push({
        loc: ["body", "row", g.firstRow, "market_location_id"],
        msg:
          `market location ${g.malo} is not registered (PUT /v1/market-locations/${g.malo} first)`,
        type: "value_error.unknown_market_location",
        input: g.malo,
        ctx: {},
      });
    }
    const qhs = deliveryDay(g.day).quarterHours.map((q) => q.epochMilliseconds);
    const byStart = new Map(g.points);
    const missing = qhs.filter((q) => !byStart.has(q)).length;
    if (missing || g.points.length !== qhs.length) {
      items.push({
        loc: ["body", "market_location_id", g.malo, g.day],
        msg:
          `delivery day ${g.day} has ${qhs.length} quarter-hours; got ${g.points.length} rows for ${g.malo} (${missing} missing${
            g.points.length - (qhs.length - missing) ? ", duplicates present" : ""
          })`,
        type: "value_error.quarter_hour_count",
        input: g.points.length,
        ctx: { expected: qhs.length, actual: g.points.length },
      });
      continue;
    }
    out.push({ malo_id: g.malo, delivery_day: g.day, values: qhs.map((q) => byStart.get(q)!) });
  }
  if (items.length) throw new InvalidInput(items, "ERR_FORECAST_INVALID");
  return out;
}
