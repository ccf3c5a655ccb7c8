/**
 * Test fixture: a day's and a month's settlement after delivery in the wire shapes of
 * `lib/wire/settlement.ts`, built in code (validated with the wire schemas by the tests), for the
 * console's unit tests (the browser test uses the real routes).
 *
 * The day: two control areas, Amprion with gaps (no actual in quarter-hours 8–11, no price in
 * 20–21) and TenneT complete; imbalance = (actual − schedule) × 0.25 h, the price of its direction,
 * cost = imbalance × price, totals summed from the arrays like the service does
 * (docs/settlement.md). Quarter-hours are UTC starts from the day's local midnight.
 * @module
 */
import type { AreaSettlement, DaySettlement, MonthSettlement } from "../../lib/wire/settlement.ts";

/** Amprion and TenneT control areas (EIC). */
export const AMPRION = "10YDE-RWENET---I";
/** TenneT's control area. */
export const TENNET = "10YDE-EON------1";

/** UTC starts of `n` quarter-hours beginning at `firstUtc` (local midnight of the day in UTC). */
export function quarterHours(firstUtc: string, n: number): string[] {
  const t0 = Date.parse(firstUtc);
  return Array.from({ length: n }, (_, i) => new Date(t0 + i * 900_000).toISOString());
}

const r3 = (v: number) => Math.round(v * 1000) / 1000;

/** One area from its schedule, day-ahead and actual; `gaps`/`unpriced` are indexes. */
export function areaFrom(o: {
  control_area: string;
  name: string;
  schedule: number[];
  dayAhead: number[];
  actual: (number | null)[];
  unpriced?: number[];
  status?: "provisional" | "final";
}): AreaSettlement {
  const n = o.schedule.length;
  const short = (i: number) => 80 + (i % 7) * 5; // EUR/MWh, unterdeckt
  const long = (i: number) => 40 - (i % 5) * 3; // EUR/MWh, ueberdeckt
  const imbalance = o.actual.map((a, i) => a === null ? null : r3((a - o.schedule[i]) * 0.25));
  const priceOf = (v: number | null, i: number) =>
    v === null || o.unpriced?.includes(i) ? null : v >= 0 ? short(i) : long(i);
  const price = imbalance.map((v, i) => priceOf(v, i));
  const cost = imbalance.map((
    v,
    i,
  ) => (v === null || price[i] === null ? null : r3(v * price[i]!)));
  const daImb = o.actual.map((a, i) => a === null ? null : (a - o.dayAhead[i]) * 0.25);
  const daCost = daImb.map((v, i) => {
    const p = priceOf(v, i);
    return v === null || p === null ? null : r3(v * p);
  });
  const sum = (xs: (number | null)[]) => r3(xs.reduce<number>((s, v) => s + (v ?? 0), 0));
  const costSum = sum(cost);
  const daSum = sum(daCost);
  const worst = imbalance
    .map((v, i) => ({ v, i }))
    .filter((x): x is { v: number; i: number } => x.v !== null)
    .sort((a, b) => Math.abs(b.v) - Math.abs(a.v))
    .slice(0, 10);
  return {
    control_area: o.control_area,
    name: o.name,
    schedule_version: 7,
    schedule_mw: o.schedule,
    day_ahead_version: 3,
    day_ahead_mw: o.dayAhead,
    actual_mw: o.actual,
    actual_source: "market_locations",
    market_location_actual_mw: null,
    imbalance_mwh: imbalance,
    price_eur_mwh: price,
    price_source: price.map((p) => p === null ? null : "rebap"),
    cost_eur: cost,
    day_ahead_cost_eur: daCost,
    intraday_mwh: o.schedule.map((v, i) => r3((v - o.dayAhead[i]) * 0.25)),
    intraday_price_eur_mwh: o.schedule.map(() => null),
    intraday_price_source: o.schedule.map(() => null),
    intraday_cost_eur: o.schedule.map(() => null),
    totals: {
      short_mwh: sum(imbalance.map((v) => (v !== null && v > 0 ? v : 0))),
      long_mwh: sum(imbalance.map((v) => (v !== null && v < 0 ? -v : 0))),
      cost_eur: costSum,
      day_ahead_cost_eur: daSum,
      imbalance_avoided_eur: r3(daSum - costSum),
      intraday_energy_cost_eur: 0,
      intraday_saving_eur: r3(daSum - costSum),
      post_delivery_moved_eur: null,
    },
    accuracy: {
      schedule: { mae_mw: 0.8, bias_mw: -0.1, nmae_pct: 4.2 },
      day_ahead: { mae_mw: 1.9, bias_mw: 0.6, nmae_pct: 9.7 },
      worst: worst.map(({ v, i }) => ({
        start: "",
        index: i,
        schedule_mw: o.schedule[i],
        actual_mw: o.actual[i],
        imbalance_mwh: v,
        price_eur_mwh: price[i],
        cost_eur: cost[i],
      })),
      by_source: [
        { source: "customer", locations: 3, mad_mw: 0.2, abs_deviation_mwh: 1.1 },
        { source: "H25", locations: 120, mad_mw: 0.6, abs_deviation_mwh: 3.4 },
        { source: "G25", locations: 14, mad_mw: null, abs_deviation_mwh: null },
      ],
    },
    completeness: {
      metered: 40,
      profile_settled: 120,
      missing: o.actual.some((v) => v === null) ? 2 : 0,
      priced_quarter_hours: n - (o.unpriced?.length ?? 0),
      estimated_quarter_hours: 0,
      substitute_quarter_hours: 0,
      substitutes: [],
      provisional_quarter_hours: 0,
      quarter_hours: n,
      status: o.status ?? "provisional",
    },
  };
}

/**
 * A day's settlement of `n` quarter-hours (92, 96 or 100) starting at `firstUtc` (e.g.
 * `2027-03-27T23:00:00Z` for 2027-03-28, the spring clock change).
 */
export function daySettlement(day: string, firstUtc: string, n = 96): DaySettlement {
  const qh = quarterHours(firstUtc, n);
  const wave = (base: number, amp: number, k: number) =>
    qh.map((_, i) => r3(base + amp * Math.sin((i / n) * 2 * Math.PI + k)));
  const schedA = wave(40, 12, 0);
  const amprion = areaFrom({
    control_area: AMPRION,
    name: "Amprion",
    schedule: schedA,
    dayAhead: wave(37, 14, 0.3),
    actual: schedA.map((v, i) => (i >= 8 && i < 12 ? null : r3(v + 3 * Math.sin(i / 3)))),
    unpriced: [20, 21],
  });
  const schedT = wave(20, 6, 1);
  const tennet = areaFrom({
    control_area: TENNET,
    name: "TenneT TSO",
    schedule: schedT,
    dayAhead: wave(18, 6, 1.2),
    actual: schedT.map((v, i) => r3(v - 1.5 * Math.cos(i / 5))),
    status: "final",
  });
  for (const a of [amprion, tennet]) {
    for (const w of a.accuracy.worst) w.start = qh[w.index];
  }
  const t = (k: keyof AreaSettlement["totals"]) =>
    r3((amprion.totals[k] ?? 0) + (tennet.totals[k] ?? 0));
  return {
    delivery_day: day,
    quarter_hours: qh,
    computed_at: new Date(Date.parse(firstUtc) + 30 * 3_600_000).toISOString(),
    status: "provisional",
    areas: [amprion, tennet],
    id_aep_eur_mwh: null,
    totals: {
      short_mwh: t("short_mwh"),
      long_mwh: t("long_mwh"),
      cost_eur: t("cost_eur"),
      day_ahead_cost_eur: t("day_ahead_cost_eur"),
      imbalance_avoided_eur: t("imbalance_avoided_eur"),
      intraday_energy_cost_eur: 0,
      intraday_saving_eur: t("intraday_saving_eur"),
      post_delivery_moved_eur: null,
    },
  };
}

/** A month with `days` settled days (from the 1st) in Amprion and TenneT; the last provisional. */
export function monthSettlement(month: string, days: number): MonthSettlement {
  const cells = Array.from({ length: days }, (_, d) => {
    const day = `${month}-${String(d + 1).padStart(2, "0")}`;
    return [AMPRION, TENNET].map((area, k) => ({
      delivery_day: day,
      control_area: area,
      short_mwh: 2 + d * 0.1 + k,
      long_mwh: 1 + k * 0.5,
      cost_eur: 300 + d * 10 + k * 100,
      day_ahead_cost_eur: k === 1 && d === 0 ? null : 800 + d * 10,
      imbalance_avoided_eur: k === 1 && d === 0 ? null : 500 - k * 100,
      intraday_energy_cost_eur: k === 1 && d === 0 ? null : 0,
      intraday_saving_eur: k === 1 && d === 0 ? null : 500 - k * 100,
      post_delivery_moved_eur: null,
      status: (d === days - 1 ? "provisional" : "final") as "provisional" | "final",
      actual_quarter_hours: 96,
    }));
  }).flat();
  const sum = (f: (c: (typeof cells)[number]) => number) => cells.reduce((s, c) => s + f(c), 0);
  const da = sum((c) => c.day_ahead_cost_eur ?? 0);
  return {
    month,
    areas: [
      { control_area: AMPRION, name: "Amprion" },
      { control_area: TENNET, name: "TenneT TSO" },
    ],
    cells,
    totals: {
      short_mwh: sum((c) => c.short_mwh),
      long_mwh: sum((c) => c.long_mwh),
      cost_eur: sum((c) => c.cost_eur),
      day_ahead_cost_eur: da,
      imbalance_avoided_eur: da - sum((c) => c.cost_eur),
      intraday_energy_cost_eur: 0,
      intraday_saving_eur: da - sum((c) => c.cost_eur),
      post_delivery_moved_eur: null,
    },
  };
}
