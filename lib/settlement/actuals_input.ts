/**
 * Actuals as CSV (`market_location_id,start,kwh`, read with csv-parse) or JSON
 * (`{"actuals": [{market_location_id, start, kwh}, …]}`) into {@link MeteredSeries}
 * (docs/actuals.md): `start` ISO 8601 with an offset (or `Z`) at a UTC quarter-hour,
 * `kwh` the energy metered in that quarter-hour. Rows of one location are joined into runs of
 * consecutive quarter-hours; a location and quarter-hour given twice is refused. Pure.
 * @module
 */
import { z } from "zod";
import { csvRows } from "./csv_rows.ts";
import { IssueList } from "./errors.ts";
import { isoMinute, type MeteredSeries, onQuarterHour, QH_MS } from "./series.ts";

/** One row, as sent. */
interface Row {
  market_location_id: unknown;
  start: unknown;
  kwh: unknown;
}

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** The JSON body of `POST /v1/actuals`. */
export const ActualsJson = z.object({
  actuals: z.array(z.object({
    market_location_id: z.string(),
    start: z.string(),
    kwh: z.number(),
  })).min(1),
});

/**
 * Reads actuals from CSV text.
 * @throws {import("./errors.ts").SettlementInputRefused} not CSV, a wrong header, or bad rows
 *   (each named by its line)
 */
export function actualsFromCsv(text: string): MeteredSeries[] {
  const data = csvRows(text, "market_location_id,start,kwh", "data rows");
  const rows = data.map((r) => ({
    market_location_id: r[0],
    start: r[1],
    kwh: r[2] === undefined || r[2] === "" ? NaN : Number(r[2]),
  }));
  return toSeries(rows, (i) => `line ${i + 2}`);
}

/**
 * Reads actuals from a JSON value (the parsed body).
 * @throws {import("./errors.ts").SettlementInputRefused} the wrong shape, or bad rows (each named
 *   by its index)
 */
export function actualsFromJson(body: unknown): MeteredSeries[] {
  const r = ActualsJson.safeParse(body);
  if (!r.success) {
    const issues = new IssueList();
    for (const i of r.error.issues.slice(0, 20)) {
      issues.add(
        ["body", ...i.path.map((p) => typeof p === "symbol" ? String(p) : p)],
        `${
          i.path.join(".") || "body"
        }: ${i.message} (expected {"actuals": [{market_location_id, start, kwh}]})`,
        "value_error.csv",
      );
    }
    issues.throwIfAny();
  }
  return toSeries(r.data!.actuals, (i) => `actuals[${i}]`);
}

/** Checks rows and joins them per location into runs of consecutive quarter-hours. */
function toSeries(rows: Row[], where: (i: number) => string): MeteredSeries[] {
  const issues = new IssueList();
  const byLocation = new Map<string, { start: number; kwh: number; at: string }[]>();
  rows.forEach((r, i) => {
    const at = where(i);
    const id = String(r.market_location_id ?? "");
    const start = typeof r.start === "string" && ISO_WITH_OFFSET.test(r.start)
      ? Date.parse(r.start)
      : NaN;
    if (!id) return issues.add(["body", at], `${at}: no market_location_id`, "value_error.csv");
    if (!Number.isFinite(start)) {
      return issues.add(
        ["body", at],
        `${at}, market location ${id}: start ${r.start} is not ISO 8601 with an offset`,
        "value_error.csv",
      );
    }
    if (!onQuarterHour(start)) {
      return issues.add(
        ["body", at],
        `${at}, market location ${id}: ${r.start} is not the start of a quarter-hour`,
        "value_error.quarter_hour",
      );
    }
    if (typeof r.kwh !== "number" || !Number.isFinite(r.kwh)) {
      return issues.add(
        ["body", at],
        `${at}, market location ${id}: kwh is not a number (decimal point, no thousands separator)`,
        "value_error.decimal_mark",
      );
    }
    const list = byLocation.get(id) ?? [];
    list.push({ start, kwh: r.kwh, at });
    byLocation.set(id, list);
  });
  const out: MeteredSeries[] = [];
  for (const [id, list] of byLocation) {
    list.sort((a, b) => a.start - b.start);
    let run: MeteredSeries | null = null;
    for (let i = 0; i < list.length; i++) {
      const p = list[i];
      if (i > 0 && list[i - 1].start === p.start) {
        issues.add(
          ["body", p.at],
          `${p.at}, market location ${id}: the quarter-hour ${
            isoMinute(p.start)
          } is given twice (also ${list[i - 1].at})`,
          "value_error.csv",
        );
        continue;
      }
      if (!run || run.start + run.kwh.length * QH_MS !== p.start) {
        run = {
          owner: { kind: "market_location", malo_id: id },
          start: p.start,
          kwh: [],
          where: p.at,
        };
        out.push(run);
      }
      run.kwh.push(p.kwh);
    }
  }
  issues.throwIfAny();
  return out;
}
