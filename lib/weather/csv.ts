/**
 * Weather as CSV (docs/weather.md, "CSV"), read with csv-parse: the header
 * `point_id,start,temperature_c,ghi_w_m2,wind_speed_m_s`, one row per point and hour or
 * quarter-hour. `start` is ISO 8601 with an offset (or `Z`) on a quarter-hour; `temperature_c` the
 * air temperature at `start` (°C), `wind_speed_m_s` the wind speed at `start` (m/s), `ghi_w_m2` the
 * global horizontal irradiance as the mean power over the row's interval (W/m²). A point whose
 * starts are all on full UTC hours is hourly (interval 1 h), else quarter-hourly (15 min). A
 * coordinate point id holds a comma, so it is quoted: `"52.52,13.42",…`. Pure.
 * @module
 */
import { parse } from "csv-parse/sync";
import { weatherPointProblem } from "../domain/weather_point.ts";
import { WeatherIssues } from "./refusal.ts";
import { HOUR_MS, type PointDelivery, QH_MS, type Sample, type Variable } from "./samples.ts";

/** The header, exactly. */
export const WEATHER_CSV_HEADER = [
  "point_id",
  "start",
  "temperature_c",
  "ghi_w_m2",
  "wind_speed_m_s",
] as const;

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
const DECIMAL = /^[-+]?\d+(\.\d+)?([eE][-+]?\d+)?$/;

/** True when `text` starts with the weather CSV header (how the inbox recognises it). */
export function isWeatherCsv(text: string): boolean {
  const first = text.replace(/^\uFEFF/, "").trimStart().split(/\r?\n/, 1)[0];
  return first.replace(/\s/g, "") === WEATHER_CSV_HEADER.join(",");
}

/**
 * Reads weather CSV into one delivery per point (values in the stored units as given).
 * @throws {import("./refusal.ts").WeatherInputRefused} not CSV, a wrong header, or bad rows, each
 *   named by its line and field
 */
export function weatherFromCsv(text: string): PointDelivery[] {
  const issues = new WeatherIssues();
  let table: { record: string[]; info: { lines: number } }[] = [];
  try {
    // With `info`, csv-parse hands out `{record, info}` per row (its types say rows only).
    table = parse(text, {
      bom: true,
      skip_empty_lines: true,
      trim: true,
      relax_column_count: true,
      info: true,
    }) as unknown as typeof table;
  } catch (err) {
    issues.add(["body"], `not valid CSV: ${(err as Error).message}`, "value_error.csv", null);
    issues.throwIfAny();
  }
  const [header, ...rows] = table;
  const want = WEATHER_CSV_HEADER.join(",");
  if (header?.record.join(",") !== want || rows.length === 0) {
    const got = header?.record.join(",") ?? "";
    issues.add(
      ["body", "line 1"],
      got === want
        ? "line 1: no data rows after the header"
        : `line 1: expected the header ${want}, got ${got.slice(0, 100)}`,
      "value_error.csv",
      got.slice(0, 100),
    );
    issues.throwIfAny();
  }
  const byPoint = new Map<string, Sample[]>();
  for (const { record, info } of rows) {
    const sample = readRow(record, `line ${info.lines}`, issues);
    if (!sample) continue;
    const list = byPoint.get(sample.point) ?? [];
    list.push(sample.row);
    byPoint.set(sample.point, list);
  }
  const out: PointDelivery[] = [];
  for (const [point, samples] of byPoint) {
    samples.sort((a, b) => a.at - b.at);
    samples.forEach((s, i) => {
      if (i > 0 && samples[i - 1].at === s.at) {
        issues.add(
          s.loc("temperature_c").slice(0, 2),
          `${s.where}, point ${point}: ${new Date(s.at).toISOString()} is given twice (also ${
            samples[i - 1].where
          })`,
          "value_error.duplicate",
          point,
        );
      }
    });
    const hourly = samples.every((s) => s.at % HOUR_MS === 0);
    out.push({ point, stepMs: hourly ? HOUR_MS : QH_MS, samples, names: NAMES });
  }
  issues.throwIfAny();
  return out;
}

const NAMES: Record<Variable, string> = {
  temperature_c: "temperature_c",
  ghi_w_m2: "ghi_w_m2",
  wind_speed_m_s: "wind_speed_m_s",
};

/** One row checked; `undefined` (with issues added) when a field is bad. */
function readRow(
  record: string[],
  where: string,
  issues: WeatherIssues,
): { point: string; row: Sample } | undefined {
  const at = (field: string) => ["body", where, field];
  if (record.length !== WEATHER_CSV_HEADER.length) {
    const hint = record.length === 6 && /^-?\d/.test(record[0] ?? "")
      ? ` (a point id lat,lon holds a comma: quote it, "${record[0]},${record[1]}")`
      : "";
    issues.add(
      ["body", where],
      `${where}: expected 5 fields, got ${record.length}${hint}`,
      "value_error.csv",
      record.join(","),
    );
    return undefined;
  }
  const [point, startText, ...numbers] = record;
  let bad = false;
  const problem = weatherPointProblem(point);
  if (problem) {
    issues.add(
      at("point_id"),
      `${where}: point_id ${point} is not a weather point id: ${problem}`,
      "value_error.weather_point",
      point,
    );
    bad = true;
  }
  const start = ISO_WITH_OFFSET.test(startText) ? Date.parse(startText) : NaN;
  if (!Number.isFinite(start)) {
    issues.add(
      at("start"),
      `${where}: start ${startText} is not ISO 8601 with an offset (e.g. 2026-11-25T10:00:00+01:00)`,
      "value_error.time",
      startText,
    );
    bad = true;
  } else if (start % QH_MS !== 0) {
    issues.add(
      at("start"),
      `${where}: start ${startText} is not the start of a quarter-hour`,
      "value_error.quarter_hour",
      startText,
    );
    bad = true;
  }
  const values = numbers.map((text, k) => {
    const field = WEATHER_CSV_HEADER[k + 2];
    if (DECIMAL.test(text)) return Number(text);
    issues.add(
      at(field),
      `${where}: ${field} ${text === "" ? "is empty" : `${text} is not a finite number`} ` +
        "(a decimal point, no thousands separator)",
      field === "ghi_w_m2" ? "value_error.irradiance" : "value_error.number",
      text,
    );
    bad = true;
    return NaN;
  });
  if (bad) return undefined;
  return {
    point,
    row: {
      at: start,
      ghiStart: start,
      temperature_c: values[0],
      ghi_w_m2: values[1],
      wind_speed_m_s: values[2],
      where,
      loc: (v) => at(v),
    },
  };
}
