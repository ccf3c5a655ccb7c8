/**
 * A customer forecast, corrected by what its errors were (docs/forecasting.md, "Customer forecasts
 * corrected"; issue 33 item 3): per wall-clock hour of the day, a bias and a scale,
 * `actual ≈ bias + scale × customer`, fitted by least squares over the 28 latest days whose actuals
 * were known, with the scale shrunk towards 1. The correction is used only when it was better than
 * the raw customer forecast over the last 28 days — each of those days corrected by a fit made with
 * what was known at that day's gate closure — and the result says which is used and both errors.
 *
 * Which customer forecast a past day had: the latest value received before that day's gate closure
 * (what its schedule was made from); for the days forecast now, the latest before the cut-off.
 * Actuals are those known at the cut-off. Pure: no storage, no clock.
 * @module
 */
import { localDayOf } from "../domain/delivery_day.ts";
import { type LoadValue, viewAt } from "./inputs.ts";
import { localDay, localTimeOn, shiftDay } from "./local_days.ts";

/** One quarter-hour of a customer forecast and when it was received. */
export interface CustomerValue {
  /** UTC ms of the quarter-hour's start. */
  startMs: number;
  /** Average power, in the load's unit. */
  value: number;
  /** UTC ms it was received; a later value for the same quarter-hour supersedes it. */
  receivedAtMs: number;
}

/** What {@link correctCustomerForecast} needs. */
export interface CorrectionRequest {
  cutoffMs: number;
  days: readonly string[];
  customer: readonly CustomerValue[];
  load: readonly LoadValue[];
  /** `HH:MM` Berlin on the day before delivery (default `12:00`). */
  gateClosureLocalTime?: string;
}

/** The per-hour correction: `actual ≈ bias[h] + scale[h] × customer`, h = wall-clock hour 0…23. */
export interface Correction {
  bias: number[];
  scale: number[];
}

/** A day's customer forecast, corrected or not, and why. */
export interface CorrectedDay {
  day: string;
  /** `customer_corrected` when the correction was better over the last 28 days; `none`: no customer forecast. */
  method: "customer" | "customer_corrected" | "none";
  reason: string;
  /** One value per quarter-hour, `null` for `none`. */
  values: number[] | null;
  correction: Correction | null;
  /** MAE of the raw and the corrected customer forecast over the days evaluated (load's unit). */
  mae: { customer: number; corrected: number; days: number } | null;
}

/** Days of history a correction is fitted on, and days it is judged on. */
export const CORRECTION_DAYS = 28;
/** Days judged below which the raw customer forecast is kept. */
const MIN_DAYS = 14;

/** A mean absolute error in kW with three significant digits and its unit: `412 kW`, `3.27 kW`. */
const kw = (v: number) => `${Number(v.toPrecision(3))} kW`;

/** Shrinkage of the scale towards 1 (ridge on scale − 1, relative to the forecast's variance). */
const SHRINK = 0.1;

/**
 * Corrects the customer forecast of each requested day where that was better recently.
 * @throws {import("../domain/delivery_day.ts").InvalidDeliveryDayError} for a malformed day
 */
export function correctCustomerForecast(req: CorrectionRequest): CorrectedDay[] {
  const gc = req.gateClosureLocalTime ?? "12:00";
  const cutoffDay = localDayOf(req.cutoffMs);
  const first = shiftDay(cutoffDay, -(2 * CORRECTION_DAYS + 3));
  const view = viewAt(req.cutoffMs, first, cutoffDay, req.load, []);
  const versions = new Map<number, CustomerValue[]>();
  for (const v of req.customer) {
    if (!Number.isFinite(v.value)) continue;
    (versions.get(v.startMs) ?? versions.set(v.startMs, []).get(v.startMs)!).push(v);
  }
  /** A day's pairs (hour, customer, actual) as known at `asOf`; NaN where missing. */
  const dayPairs = (day: string, asOf: number) => {
    const d = localDay(day);
    const k = view.days.findIndex((x) => x.day === day);
    return Array.from({ length: d.length }, (_, i) => {
      const startMs = d.startMs + i * 900_000;
      const latest = (versions.get(startMs) ?? []).filter((v) => v.receivedAtMs < asOf)
        .reduce<CustomerValue | null>(
          (a, v) => (!a || v.receivedAtMs >= a.receivedAtMs ? v : a),
          null,
        );
      return {
        hour: Math.floor(d.slots[i] / 4),
        customer: latest?.value ?? NaN,
        actual: k >= 0 ? view.load[view.dayStart[k] + i] : NaN,
      };
    });
  };
  const gateOf = (day: string) => localTimeOn(shiftDay(day, -1), gc);
  /** A past day's pairs as its schedule had them (customer as of its gate closure), memoized. */
  const pastDays = new Map<string, ReturnType<typeof dayPairs>>();
  const pastPairs = (day: string) => {
    let pairs = pastDays.get(day);
    if (!pairs) {
      pairs = dayPairs(day, gateOf(day)).filter((p) => Number.isFinite(p.customer + p.actual));
      pastDays.set(day, pairs);
    }
    return pairs;
  };
  /** Per-hour sums of a past day's pairs, memoized (see {@link fitCorrection}). */
  const pastStats = new Map<string, Float64Array>();
  const statsOf = (day: string) => {
    let st = pastStats.get(day);
    if (!st) {
      st = new Float64Array(24 * STATS);
      for (const p of pastPairs(day)) {
        const r = p.actual - p.customer, o = p.hour * STATS;
        st[o] += 1;
        st[o + 1] += p.customer;
        st[o + 2] += r;
        st[o + 3] += p.customer * p.customer;
        st[o + 4] += p.customer * r;
      }
      pastStats.set(day, st);
    }
    return st;
  };
  /** The sums over the CORRECTION_DAYS days before `day`'s latest actuals (d−2 … d−29). */
  const history = (day: string) => {
    const sum = new Float64Array(24 * STATS);
    for (let n = 2; n < CORRECTION_DAYS + 2; n++) {
      const st = statsOf(shiftDay(day, -n));
      for (let j = 0; j < sum.length; j++) sum[j] += st[j];
    }
    return sum;
  };
  // Judge: each of the last 28 days, corrected by a fit on the 28 days before it.
  let raw = 0, corrected = 0, judged = 0, n = 0;
  for (let back = 1; back <= CORRECTION_DAYS; back++) {
    const d = shiftDay(cutoffDay, -back);
    const pairs = pastPairs(d);
    if (pairs.length === 0) continue;
    const c = fitCorrection(history(d));
    for (const p of pairs) {
      raw += Math.abs(p.customer - p.actual);
      corrected += Math.abs(apply(c, p.hour, p.customer) - p.actual);
      n++;
    }
    judged++;
  }
  const mae = n ? { customer: raw / n, corrected: corrected / n, days: judged } : null;
  const useIt = mae !== null && judged >= MIN_DAYS && mae.corrected < mae.customer;
  const correction = fitCorrection(history(shiftDay(cutoffDay, 1)));
  return req.days.map((day) => {
    const pairs = dayPairs(day, req.cutoffMs);
    if (pairs.some((p) => !Number.isFinite(p.customer))) {
      return {
        day,
        method: "none",
        reason: `no customer forecast for every quarter-hour of ${day} before the cut-off`,
        values: null,
        correction: null,
        mae,
      };
    }
    const why = mae === null
      ? "no day of the last 28 with both actuals and a customer forecast"
      : `over ${mae.days} of the last 28 days: customer ${kw(mae.customer)}, corrected ${
        kw(mae.corrected)
      } (MAE)`;
    if (!useIt) {
      const short = mae !== null && judged < MIN_DAYS
        ? `; fewer than ${MIN_DAYS} days to judge`
        : "";
      return {
        day,
        method: "customer",
        reason: `${why}${short}`,
        values: pairs.map((p) => p.customer),
        correction: null,
        mae,
      };
    }
    return {
      day,
      method: "customer_corrected",
      reason: why,
      values: pairs.map((p) => apply(correction, p.hour, p.customer)),
      correction,
      mae,
    };
  });
}

/** Sums per hour kept for a fit: n, Σ customer, Σ (actual − customer), Σ customer², Σ customer × (actual − customer). */
const STATS = 5;

/**
 * Least-squares bias and scale per hour from the per-hour sums, the scale shrunk towards 1;
 * the identity where an hour has fewer than 2 pairs.
 */
function fitCorrection(sums: Float64Array): Correction {
  const bias = Array<number>(24).fill(0), scale = Array<number>(24).fill(1);
  for (let h = 0; h < 24; h++) {
    const o = h * STATS, n = sums[o];
    if (n < 2) continue;
    const mc = sums[o + 1] / n, mr = sums[o + 2] / n;
    const sxx = sums[o + 3] - n * mc * mc, sxr = sums[o + 4] - n * mc * mr;
    const beta = sxx > 1e-12 * (1 + sums[o + 3]) ? sxr / (sxx * (1 + SHRINK)) : 0;
    scale[h] = 1 + beta;
    bias[h] = mr - beta * mc;
  }
  return { bias, scale };
}

const apply = (c: Correction, hour: number, v: number) => c.bias[hour] + c.scale[hour] * v;
