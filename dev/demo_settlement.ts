/**
 * The demo's day after delivery (docs/settlement.md): yesterday's schedules as the demo would have
 * sent them had it run yesterday (a day-ahead version with an optimistic PV forecast, an intraday
 * version from 08:00 with the full one, both confirmed — written into the store's version history,
 * since a fresh demo store has no yesterday), the metering simulator's MSCONS for the metered
 * locations (the PV parks and the larger commercial customers: their expected power plus noise;
 * as the handbook writes it, with one substitute value) and the TSOs' AEP estimate into the actuals
 * inbox with ID AEP — the morning after, the reBAP is not published yet — one orchestrator pass that imports
 * them, and the line "yesterday: 3.2 MWh short, 1.1 MWh long, imbalance cost 412.50 EUR (day-ahead
 * only: 1,030.00 EUR); intraday saved 500.00 EUR net of 117.50 EUR for the intraday energy at ID
 * AEP; estimated: priced by the TSOs' AEP estimate until the reBAP is published …".
 * @module
 */
import { addDays, deliveryDay } from "../lib/domain/delivery_day.ts";
import { generateProfileForecast, type ProfileCode } from "../lib/domain/slp/profile.ts";
import { recordVersionAnswer, recordVersionSent } from "../lib/fahrplan/history.ts";
import { berlinToday, parkRows } from "./demo_intraday.ts";
import { type MeteredLocation, writeMeteringFiles } from "./metering_simulator.ts";
import type { DaySettlement } from "../lib/wire/settlement.ts";
import { writeLearnedForecasts } from "../lib/pipeline/forecasts.ts";
import type { LearnedLocation } from "./demo_learned.ts";

/** Profiles whose customers the demo meters (commercial and agricultural load curves). */
const METERED_PROFILES = new Set(["G0", "G25", "L0", "L25"]);

/** What the demo reports about yesterday. */
export interface YesterdayReport {
  delivery_day: string;
  line: string;
  short_mwh: number;
  long_mwh: number;
  cost_eur: number;
  day_ahead_cost_eur: number | null;
  status: string;
  /** Per control area: MAE, bias, nMAE of the schedule and of the day-ahead schedule. */
  accuracy: { area: string; schedule: unknown; day_ahead: unknown }[];
}

type Api = (path: string, method?: string, body?: unknown) => Promise<unknown>;

const en = (x: number, digits: number) =>
  x.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });

/**
 * Settles yesterday in the running demo.
 * @param kvPath the service's store (opened beside the service for the version history)
 * @param inbox the service's `ACTUALS_INBOX_DIR`
 */
export async function settleYesterday(opts: {
  api: Api;
  kvPath: string;
  inbox: string;
  portfolio: readonly Record<string, unknown>[];
  parks: readonly { id: string; peakKw: number }[];
  areas: readonly string[];
  /** The learned location: its forecast of yesterday joins the schedule and is stored as made. */
  learned?: LearnedLocation;
}): Promise<YesterdayReport> {
  const day = addDays(berlinToday(), -1);
  const dd = deliveryDay(day);
  const n = dd.quarterHours.length;
  const parkArea = new Map(
    opts.portfolio.map((p) => [p.malo_id as string, p.control_area as string]),
  );
  const slp = new Map(opts.areas.map((a) => [a, new Float64Array(n)]));
  const pv = new Map(opts.areas.map((a) => [a, new Float64Array(n)]));
  const metered: MeteredLocation[] = [];
  for (const p of opts.portfolio) {
    const code = p.standard_load_profile as ProfileCode | undefined;
    if (!code) continue;
    const kw = generateProfileForecast(code, p.annual_kwh as number, day, "DE");
    const acc = slp.get(p.control_area as string)!;
    for (let i = 0; i < n; i++) acc[i] += kw[i];
    if (METERED_PROFILES.has(code)) metered.push({ malo_id: p.malo_id as string, kw, noise: 0.08 });
  }
  for (const park of opts.parks) {
    const kw = parkRows(park.id, day, park.peakKw).map((r) => Number(r.split(",")[2]));
    const acc = pv.get(parkArea.get(park.id)!)!;
    for (let i = 0; i < n; i++) acc[i] += kw[i];
    metered.push({ malo_id: park.id, kw, noise: 0.12 });
  }
  const y = opts.learned?.yesterday;
  if (y && y.day === day) {
    const acc = slp.get(opts.learned!.area)!;
    for (let i = 0; i < n; i++) acc[i] += y.kw[i];
  }
  // v1 day-ahead (PV at 125 %: an optimistic forecast), v2 intraday from 08:00 Berlin on (PV at 100 %).
  const from = dd.quarterHours.findIndex((q) => q.toZonedDateTimeISO("Europe/Berlin").hour >= 8);
  const kv = await Deno.openKv(opts.kvPath);
  try {
    if (y && y.day === day) {
      await writeLearnedForecasts(kv, day, [{ malo_id: opts.learned!.id, forecast: y.record }]);
    }
    for (const area of opts.areas) {
      const s = slp.get(area)!, g = pv.get(area)!;
      const mw = (pvShare: (i: number) => number) =>
        Array.from({ length: n }, (_, i) => Math.round(s[i] - g[i] * pvShare(i)) / 1000);
      const versions = [
        {
          version: 1,
          phase: "day_ahead" as const,
          sent_at: dd.start.subtract({ hours: 33 }).toString(),
          frozen_before: dd.start.toString(),
          quantities: mw(() => 1.25),
        },
        {
          version: 2,
          phase: "intraday" as const,
          sent_at: dd.quarterHours[from].subtract({ minutes: 20 }).toString(),
          frozen_before: dd.quarterHours[from].toString(),
          quantities: mw((i) => (i < from ? 1.25 : 1)),
        },
      ];
      for (const v of versions) {
        await recordVersionSent(kv, day, area, {
          ...v,
          aggregate_version: v.version,
          file: `${day.replaceAll("-", "")}_TPS_demo_${area}_00${v.version}.xml`,
        });
        await recordVersionAnswer(kv, day, area, v.version, {
          tso_status: "confirmed",
          reason_code: null,
          reason_text: null,
          at: v.sent_at,
        });
      }
    }
  } finally {
    kv.close();
  }
  await writeMeteringFiles(opts.inbox, day, metered);
  await opts.api("/v1/orchestrate", "POST");
  const s = await opts.api(`/v1/delivery-days/${day}/settlement`) as DaySettlement;
  const t = s.totals;
  const estimated = s.areas.some((a) => a.completeness.estimated_quarter_hours > 0);
  const net = t.intraday_saving_eur === null || t.intraday_energy_cost_eur === null
    ? ""
    : `; intraday saved ${en(t.intraday_saving_eur, 2)} EUR net of ${
      en(t.intraday_energy_cost_eur, 2)
    } EUR for the intraday energy at ID AEP`;
  const line = `yesterday: ${en(t.short_mwh, 1)} MWh short, ${
    en(t.long_mwh, 1)
  } MWh long, imbalance cost ${en(t.cost_eur, 2)} EUR (day-ahead only: ${
    t.day_ahead_cost_eur === null ? "none" : `${en(t.day_ahead_cost_eur, 2)} EUR`
  })${net}${
    estimated
      ? "; estimated: priced by the TSOs' AEP estimate until the reBAP is published after quality assurance"
      : ""
  }`;
  return {
    delivery_day: day,
    line,
    short_mwh: t.short_mwh,
    long_mwh: t.long_mwh,
    cost_eur: t.cost_eur,
    day_ahead_cost_eur: t.day_ahead_cost_eur,
    status: s.status,
    accuracy: s.areas.map((a) => ({
      area: a.name,
      schedule: a.accuracy.schedule,
      day_ahead: a.accuracy.day_ahead,
    })),
  };
}
