/**
 * The JSON answer of the Open-Meteo forecast API (`GET https://api.open-meteo.com/v1/forecast`),
 * as it arrives (docs/weather.md, "Open-Meteo"): one location's object, or the array a request for
 * several coordinates answers. Read from it, per Open-Meteo's documentation
 * (open-meteo.com/en/docs, "Hourly Parameter Definition" and "JSON Return Object"):
 *
 * - `latitude`, `longitude`: the centre of the grid cell used; the point id is
 *   `lat,lon` rounded to 0.01° (`lib/domain/weather_point.ts`);
 * - `hourly.time`: local times `YYYY-MM-DDTHH:MM` without offset, shifted from UTC by the one
 *   `utc_offset_seconds` of the answer (so UTC = time − utc_offset_seconds, also across a clock
 *   change), or UTC epoch seconds with `hourly_units.time` = `unixtime`;
 * - `hourly.temperature_2m` (instant), `hourly.wind_speed_100m` or `hourly.wind_speed_10m`
 *   (instant; 100 m preferred; the older spellings `windspeed_*` too), and
 *   `hourly.shortwave_radiation`: "Preceding hour mean", the global horizontal irradiance as the
 *   average of the hour that ends at the time given;
 * - `hourly_units`: each variable's unit. Known and converted: `°C`, `°F` (°C = (°F − 32) × 5/9);
 *   `W/m²`; `m/s`, `km/h` (÷ 3.6), `kn` (× 1852/3600), `mp/h` (× 0.44704). Any other unit, or none,
 *   is refused; nothing is guessed. `timezone` and `timezone_abbreviation` are not needed: the
 *   offset says it all. A value `null` (Open-Meteo's "no data") is a missing value. Pure.
 * @module
 */
import { coordinatePointId } from "../domain/weather_point.ts";
import { WeatherIssues } from "./refusal.ts";
import { HOUR_MS, type PointDelivery, QH_MS, type Sample, type Variable } from "./samples.ts";

/** Conversions into the stored unit, by variable and Open-Meteo's unit text. */
const UNITS: Record<Variable, Record<string, (x: number) => number>> = {
  temperature_c: { "°C": (x) => x, "°F": (x) => (x - 32) * 5 / 9 },
  ghi_w_m2: { "W/m²": (x) => x },
  wind_speed_m_s: {
    "m/s": (x) => x,
    "km/h": (x) => x / 3.6,
    "kn": (x) => x * 1852 / 3600,
    "mp/h": (x) => x * 0.44704,
  },
};

/** Open-Meteo's names of each variable, preferred first. */
const SOURCES: Record<Variable, string[]> = {
  temperature_c: ["temperature_2m"],
  ghi_w_m2: ["shortwave_radiation"],
  wind_speed_m_s: ["wind_speed_100m", "windspeed_100m", "wind_speed_10m", "windspeed_10m"],
};

const LOCAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/;

/** True when a parsed JSON value looks like an Open-Meteo answer (how the inbox recognises it). */
export function isOpenMeteo(value: unknown): boolean {
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === "object" && first !== null &&
    ("hourly" in first || "utc_offset_seconds" in first || "error" in first);
}

/**
 * Reads an Open-Meteo answer into one delivery per location.
 * @throws {import("./refusal.ts").WeatherInputRefused} a shape, unit, time or value that is not as
 *   documented, each named by its place in the answer
 */
export function weatherFromOpenMeteo(body: unknown): PointDelivery[] {
  const issues = new WeatherIssues();
  const answers = Array.isArray(body) ? body : [body];
  if (answers.length === 0) {
    issues.add(["body"], "an empty array holds no Open-Meteo answer", "value_error.json", null);
  }
  const out: PointDelivery[] = [];
  answers.forEach((a, i) => {
    const prefix = Array.isArray(body) ? [i] : [];
    const d = readAnswer(a, prefix, issues);
    if (d) out.push(d);
  });
  issues.throwIfAny();
  return out;
}

/** One location's answer; `undefined` (with issues added) when it cannot be read. */
function readAnswer(
  a: unknown,
  prefix: number[],
  issues: WeatherIssues,
): PointDelivery | undefined {
  const name = (...path: (string | number)[]) =>
    [...prefix, ...path].map((p, k) => typeof p === "number" ? `[${p}]` : (k ? "." : "") + p)
      .join("");
  const loc = (...path: (string | number)[]) => ["body", ...prefix, ...path];
  const miss = (path: (string | number)[], msg: string, input: unknown = null) => {
    issues.add(loc(...path), `${name(...path) || "body"}: ${msg}`, "value_error.missing", input);
    return undefined;
  };
  if (typeof a !== "object" || a === null || Array.isArray(a)) {
    return miss([], "expected the JSON object of an Open-Meteo answer");
  }
  const o = a as Record<string, unknown>;
  if (o.error === true) {
    return miss(
      ["reason"],
      `an Open-Meteo error answer, not weather: ${String(o.reason)}`,
      o.reason,
    );
  }
  const lat = o.latitude, lon = o.longitude, offset = o.utc_offset_seconds;
  if (typeof lat !== "number" || !(Math.abs(lat) <= 90)) {
    return miss(["latitude"], "expected the grid cell's latitude in degrees (−90…90)", lat);
  }
  if (typeof lon !== "number" || !(Math.abs(lon) <= 180)) {
    return miss(["longitude"], "expected the grid cell's longitude in degrees (−180…180)", lon);
  }
  if (!Number.isInteger(offset) || Math.abs(offset as number) > 18 * 3600) {
    return miss(["utc_offset_seconds"], "expected the answer's offset from UTC in seconds", offset);
  }
  if ((offset as number) % (QH_MS / 1000) !== 0) {
    return miss(
      ["utc_offset_seconds"],
      `${offset} s is not a whole number of quarter-hours: the times would not fall on UTC quarter-hours (ask with timezone=GMT)`,
      offset,
    );
  }
  const hourly = o.hourly as Record<string, unknown> | undefined;
  const units = o.hourly_units as Record<string, unknown> | undefined;
  if (typeof hourly !== "object" || hourly === null || !Array.isArray(hourly.time)) {
    return miss(["hourly", "time"], "expected hourly values with their time array");
  }
  if (typeof units !== "object" || units === null) {
    return miss(["hourly_units"], "expected the unit of each hourly variable; none is guessed");
  }
  const point = coordinatePointId(lat, lon);
  const times = readTimes(hourly.time, units.time, offset as number, name, loc, issues);
  if (!times) return undefined;
  const columns = {} as Record<Variable, { source: string; values: (number | null)[] }>;
  for (const v of Object.keys(SOURCES) as Variable[]) {
    const source = SOURCES[v].find((s) => s in hourly);
    if (!source) {
      miss(["hourly", SOURCES[v][0]], `missing (expected ${SOURCES[v].join(" or ")})`);
      continue;
    }
    const unit = units[source];
    const convert = typeof unit === "string" ? UNITS[v][unit] : undefined;
    if (!convert) {
      issues.add(
        loc("hourly_units", source),
        `${name("hourly_units", source)}: ${
          unit === undefined ? "missing" : `the unit ${JSON.stringify(unit)} is not known here`
        }: ${source} is read in ${Object.keys(UNITS[v]).join(", ")}; a unit is never guessed`,
        "value_error.unit",
        unit ?? null,
      );
      continue;
    }
    const raw = hourly[source];
    if (!Array.isArray(raw) || raw.length !== times.length) {
      miss(
        ["hourly", source],
        `expected an array as long as hourly.time (${times.length} values)`,
        Array.isArray(raw) ? raw.length : raw,
      );
      continue;
    }
    const values = raw.map((x, k) => {
      if (x === null) return null;
      if (typeof x === "number") return convert(x);
      issues.add(
        loc("hourly", source, k),
        `${name("hourly", source, k)} (${times[k].label}): ${
          JSON.stringify(x)
        } is not a number or null`,
        v === "ghi_w_m2" ? "value_error.irradiance" : "value_error.number",
        x,
      );
      return null;
    });
    columns[v] = { source, values };
  }
  if (Object.keys(columns).length < 3) return undefined;
  const samples: Sample[] = times.map((t, k) => ({
    at: t.at,
    ghiStart: t.at - HOUR_MS, // "Preceding hour mean"
    temperature_c: columns.temperature_c.values[k],
    ghi_w_m2: columns.ghi_w_m2.values[k],
    wind_speed_m_s: columns.wind_speed_m_s.values[k],
    where: `${name("hourly", "time", k)} (${t.label})`,
    loc: (v) => loc("hourly", columns[v].source, k),
  }));
  const names = Object.fromEntries(
    (Object.keys(columns) as Variable[]).map((v) => [v, columns[v].source]),
  ) as Record<Variable, string>;
  return { point, stepMs: HOUR_MS, samples, names };
}

/** The UTC instants of `hourly.time`, each a quarter-hour, increasing by whole hours. */
function readTimes(
  raw: unknown[],
  unit: unknown,
  offsetSeconds: number,
  name: (...p: (string | number)[]) => string,
  loc: (...p: (string | number)[]) => (string | number)[],
  issues: WeatherIssues,
): { at: number; label: string }[] | undefined {
  if (unit !== "iso8601" && unit !== "unixtime") {
    issues.add(
      loc("hourly_units", "time"),
      `${name("hourly_units", "time")}: ${
        unit === undefined ? "missing" : `${JSON.stringify(unit)} is not known here`
      }: expected iso8601 or unixtime; the time format is never guessed`,
      "value_error.unit",
      unit ?? null,
    );
    return undefined;
  }
  const before = issues.count;
  const out: { at: number; label: string }[] = [];
  raw.forEach((t, k) => {
    const at = unit === "unixtime"
      ? (Number.isInteger(t) ? (t as number) * 1000 : NaN)
      : typeof t === "string" && LOCAL_TIME.test(t)
      ? Date.parse(`${t}:00Z`) - offsetSeconds * 1000
      : NaN;
    const prev = out[k - 1]?.at;
    if (!Number.isFinite(at) || at % QH_MS !== 0) {
      issues.add(
        loc("hourly", "time", k),
        `${name("hourly", "time", k)}: ${JSON.stringify(t)} is not ${
          unit === "unixtime" ? "UTC epoch seconds" : "a local time YYYY-MM-DDTHH:MM"
        } on a quarter-hour`,
        "value_error.time",
        t,
      );
    } else if (prev !== undefined && Number.isFinite(prev)) {
      const step = at - prev;
      if (step <= 0 || step % HOUR_MS !== 0) {
        issues.add(
          loc("hourly", "time", k),
          `${name("hourly", "time", k)}: ${String(t)} is not a whole number of hours after ${
            name("hourly", "time", k - 1)
          }`,
          "value_error.time",
          t,
        );
      }
    }
    out.push({ at, label: String(t) });
  });
  return issues.count === before ? out : undefined;
}
