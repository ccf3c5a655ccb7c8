/**
 * Where the deviation came from, per metered market location (docs/settlement.md, "Computation"):
 * for one delivery day and control area, each metered location's forecast against its actual —
 * the forecast it was scheduled with: its stored forecast (a customer's, or one the service made),
 * else its BDEW profile × annual energy, else none (a metered location nobody forecast: its whole
 * actual is deviation). Energies as metered (MWh, no sign), largest absolute deviation first. Read
 * on demand (a day may hold 100,000 metered locations); the day's settlement keeps the sum per
 * source.
 * @module
 */
import type { EffectiveConfig } from "../config/fields.ts";
import { deliveryDay } from "../domain/delivery_day.ts";
import type { ProfileCode } from "../domain/slp/profile.ts";
import { locationFacts } from "../pipeline/location_facts.ts";
import { shapeModules } from "../pipeline/shape_modules.ts";
import { actualsBatches } from "./actuals_store.ts";
import { countedForecast, forecastSources } from "./forecast_sources.ts";

/** One metered location's forecast against its actual. */
export interface LocationDeviation {
  malo_id: string;
  direction: "consumption" | "generation";
  /**
   * What it was forecast with: `customer`, the service's forecast source (e.g. `learned`), a
   * profile code (`G0`, …), or `none`.
   */
  source: string;
  /** Quarter-hours with an actual (the figures are over these). */
  quarter_hours: number;
  /** Σ forecast × 0.25 h, MWh. */
  forecast_mwh: number;
  /** Σ actual × 0.25 h, MWh. */
  actual_mwh: number;
  /** Σ |forecast − actual| × 0.25 h, MWh. */
  abs_deviation_mwh: number;
}

const r6 = (x: number) => Math.round(x * 1e6) / 1e6;

/**
 * Every metered location of `area` on `day` with its deviation, largest first.
 * @throws {import("../domain/slp/day_type.ts").UnknownHolidayRegionError} for a bad holiday region
 */
export async function locationDeviations(
  kv: Deno.Kv,
  cfg: EffectiveConfig,
  day: string,
  area: string,
): Promise<LocationDeviation[]> {
  const n = deliveryDay(day).quarterHours.length;
  const [forecasts, facts, modules] = await Promise.all([
    forecastSources(kv, day, { replaced: false }),
    locationFacts(kv),
    shapeModules(),
  ]);
  const shapes = new Map<ProfileCode, Readonly<Float64Array>>();
  const shapeOf = (p: ProfileCode) => {
    let s = shapes.get(p);
    if (!s) {
      s = modules.profile.sharedProfileShape(p, day, cfg.holiday_region ?? "DE");
      shapes.set(p, s);
    }
    return s;
  };
  const out: LocationDeviation[] = [];
  for await (const batch of actualsBatches(kv, day)) {
    const locs = await facts.read(batch.map(([id]) => id));
    batch.forEach(([id, rec], k) => {
      const loc = locs[k];
      if (!loc || loc.control_area !== area) return;
      const profile = loc.standard_load_profile;
      // The forecast that counted for it, as the settlement's sources read it.
      const stored = countedForecast(forecasts, id, profile);
      const values = stored ? stored.values : null;
      const shape = !values && profile ? shapeOf(profile) : null;
      const annual = loc.annual_kwh ?? 0;
      let f = 0, a = 0, dev = 0, qh = 0;
      for (let i = 0; i < n; i++) {
        const v = rec.kwh[i];
        if (v === undefined || Number.isNaN(v)) continue;
        const kw = values ? values[i] : shape ? shape[i] * annual : 0;
        qh++;
        f += kw;
        a += v * 4;
        dev += Math.abs(kw - v * 4);
      }
      out.push({
        malo_id: id,
        direction: loc.direction,
        source: values ? stored!.source : profile ?? "none",
        quarter_hours: qh,
        forecast_mwh: r6(f * 0.25 / 1000),
        actual_mwh: r6(a * 0.25 / 1000),
        abs_deviation_mwh: r6(dev * 0.25 / 1000),
      });
    });
  }
  return out.sort((x, y) =>
    y.abs_deviation_mwh - x.abs_deviation_mwh || (x.malo_id < y.malo_id ? -1 : 1)
  );
}

/** The list as CSV, one row per location. */
export function deviationsCsv(rows: readonly LocationDeviation[]): string {
  const head = "malo_id,direction,source,quarter_hours,forecast_mwh,actual_mwh,abs_deviation_mwh";
  return [
    head,
    ...rows.map((r) =>
      [
        r.malo_id,
        r.direction,
        r.source,
        r.quarter_hours,
        r.forecast_mwh,
        r.actual_mwh,
        r.abs_deviation_mwh,
      ].join(",")
    ),
  ].join("\r\n") + "\r\n";
}
