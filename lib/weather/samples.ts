/**
 * Weather of one point as delivered (CSV rows, Open-Meteo hours), checked and turned into UTC
 * quarter-hours (docs/weather.md, "From hours to quarter-hours"). Pure.
 *
 * A sample stands for two things: the instantaneous temperature and wind speed at its instant
 * `at`, and the mean irradiance over its interval `[ghiStart, ghiStart + step)`. A CSV row's
 * interval starts at its `start`; an Open-Meteo hour's ends at its time ("preceding hour mean").
 *
 * Quarter-hours:
 * - irradiance: an interval's mean is the value of every quarter-hour inside it (an hourly mean
 *   gives its four quarter-hours that mean): the energy of each hour is kept, nothing is
 *   interpolated between means;
 * - temperature and wind speed: the value at the quarter-hour's start, linear between the two
 *   given instants around it (across a gap of at most 6 h too); nothing before the first or after
 *   the last given instant;
 * - a quarter-hour without a value stays unknown (`NaN`), never 0.
 * @module
 */
import type { WeatherIssues } from "./refusal.ts";

/** 15 minutes and one hour, in ms. */
export const QH_MS = 900_000;
export const HOUR_MS = 3_600_000;
/** The longest stretch without a value that is bridged (docs/weather.md, "Refusals"). */
export const MAX_GAP_MS = 6 * HOUR_MS;

/** The stored variables, by their names in the CSV and in storage. */
export const VARIABLES = ["temperature_c", "ghi_w_m2", "wind_speed_m_s"] as const;
/** One of {@link VARIABLES}. */
export type Variable = typeof VARIABLES[number];

/** What a value must be, after conversion to the stored unit. */
const LIMITS: Record<Variable, { min: number; max: number; what: string }> = {
  temperature_c: { min: -90, max: 70, what: "an air temperature in °C (−90…70)" },
  ghi_w_m2: { min: 0, max: 2000, what: "an irradiance in W/m² (0…2,000)" },
  wind_speed_m_s: { min: 0, max: 150, what: "a wind speed in m/s (0…150)" },
};

/** One delivered row of a point, in the stored units (`null`: not given). */
export interface Sample {
  /** UTC ms of the instantaneous values (temperature, wind speed); on a quarter-hour. */
  at: number;
  /** UTC ms where the irradiance interval starts (its length is the delivery's step). */
  ghiStart: number;
  temperature_c: number | null;
  ghi_w_m2: number | null;
  wind_speed_m_s: number | null;
  /** The row in words, e.g. `line 4` or `hourly.time[7] (2026-11-25T07:00)`. */
  where: string;
  /** Where a field of this row is, for the 422 item (e.g. `["body", "line 4", "ghi_w_m2"]`). */
  loc(v: Variable): (string | number)[];
}

/** One point's weather in one delivery. */
export interface PointDelivery {
  point: string;
  /** Step between rows and length of an irradiance interval: {@link HOUR_MS} or {@link QH_MS}. */
  stepMs: number;
  /** Rows in time order, each instant once. */
  samples: Sample[];
  /** How the delivery names each variable, for sentences (`ghi_w_m2`, `shortwave_radiation`). */
  names: Record<Variable, string>;
}

/** A point's quarter-hours: `values[v][i]` belongs to the quarter-hour `start + i × 15 min`. */
export interface QuarterHourSeries {
  point: string;
  /** UTC ms of the first quarter-hour. */
  start: number;
  /** Per variable, one value per quarter-hour; `NaN` = unknown. */
  values: Record<Variable, Float64Array>;
}

/**
 * Checks every value (finite, within its physical range; irradiance never negative) and every
 * stretch without a value (at most {@link MAX_GAP_MS} between two given rows, per variable).
 * Adds one issue per problem to `issues`.
 */
export function checkDelivery(d: PointDelivery, issues: WeatherIssues): void {
  for (const v of VARIABLES) {
    let prev: Sample | undefined;
    for (const s of d.samples) {
      const x = s[v];
      if (x === null) continue;
      const lim = LIMITS[v];
      if (!Number.isFinite(x) || x < lim.min || x > lim.max) {
        const why = !Number.isFinite(x)
          ? "is not a finite number"
          : v === "ghi_w_m2" && x < 0
          ? "is negative: irradiance is a mean power, at least 0 W/m²"
          : `is not ${lim.what}`;
        issues.add(
          s.loc(v),
          `${s.where}, point ${d.point}: ${d.names[v]} ${x} ${why}`,
          v === "ghi_w_m2" ? "value_error.irradiance" : "value_error.range",
          x,
        );
        continue;
      }
      if (prev) {
        const missing = s.at - prev.at - d.stepMs;
        if (missing > MAX_GAP_MS) {
          issues.add(
            s.loc(v),
            `${s.where}, point ${d.point}: ${d.names[v]} has no value for ${
              hours(missing)
            } before this row (since ${prev.where}); at most 6 h may be missing`,
            "value_error.gap",
            x,
          );
        }
      }
      prev = s;
    }
  }
}

const hours = (ms: number) => `${+(ms / HOUR_MS).toFixed(2)} h`;

/** The quarter-hours of a checked delivery (see the module's rules). */
export function toQuarterHours(d: PointDelivery): QuarterHourSeries {
  const per = d.stepMs / QH_MS;
  let first = Infinity, end = -Infinity;
  for (const s of d.samples) {
    first = Math.min(first, s.at, s.ghiStart);
    end = Math.max(end, s.at + QH_MS, s.ghiStart + d.stepMs);
  }
  const n = Math.max(0, (end - first) / QH_MS);
  const values = {
    temperature_c: new Float64Array(n).fill(NaN),
    ghi_w_m2: new Float64Array(n).fill(NaN),
    wind_speed_m_s: new Float64Array(n).fill(NaN),
  };
  for (const s of d.samples) {
    if (s.ghi_w_m2 === null) continue;
    const at = (s.ghiStart - first) / QH_MS;
    values.ghi_w_m2.fill(s.ghi_w_m2, at, at + per);
  }
  for (const v of ["temperature_c", "wind_speed_m_s"] as const) {
    const out = values[v];
    let prev: Sample | undefined;
    for (const s of d.samples) {
      const x = s[v];
      if (x === null) continue;
      const i = (s.at - first) / QH_MS;
      out[i] = x;
      if (prev) {
        const p = (prev.at - first) / QH_MS, y = prev[v]!;
        for (let k = p + 1; k < i; k++) out[k] = y + (x - y) * (k - p) / (i - p);
      }
      prev = s;
    }
  }
  return { point: d.point, start: first, values };
}
