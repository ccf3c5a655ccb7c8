/**
 * The settlement of one control area on one delivery day (docs/settlement.md, "Computation"), pure:
 * per UTC quarter-hour
 * - `imbalance_mwh = (actual − schedule) × 0.25 h` — > 0 short (the balancing group took more than
 *   scheduled), < 0 long (StromNZV § 4 (2): the BRP is responsible for the balance of its group);
 * - `price_eur_mwh` = reBAP "unterdeckt" when short, "ueberdeckt" when long (and when balanced,
 *   where the cost is 0 whatever the price); until the reBAP is published, the TSOs' AEP estimate,
 *   labelled per quarter-hour (`price_source`) and keeping the day provisional;
 * - `cost_eur = imbalance × price` — > 0 the BRP pays (a negative price turns a shortage into
 *   income);
 * and the same against the last day-ahead version alone; what the intraday versions saved, net of
 * the cost of the energy they moved (`intradayEnergy`). `null` wherever an input is missing,
 * never a guessed zero; totals add the known values. Figures are rounded at the end (MW and MWh
 * to 6 decimals, EUR to 4 per quarter-hour and 2 in totals).
 * @module
 */
import type { Accuracy, AreaSettlement, SettlementTotals } from "../wire/settlement.ts";
import type { PriceSource } from "./prices_store.ts";
import type { QualitySummary } from "./quality_tally.ts";

/** What the settlement of one area is computed from. */
export interface AreaInputs {
  control_area: string;
  name: string;
  /** UTC ISO starts of the day's quarter-hours. */
  quarter_hours: readonly string[];
  /** The last version the TSO did not reject, MW per quarter-hour (purchase − sale). */
  schedule: { version: number; mw: readonly number[] } | null;
  /** The last day-ahead version. */
  day_ahead: { version: number; mw: readonly number[] } | null;
  /**
   * When the standing version is a post-delivery correction: the version that stood when delivery
   * ended (the last day-ahead or intraday one not rejected); else `null`.
   */
  before_correction: { version: number; mw: readonly number[] } | null;
  /** Net actual of the market locations, MW (consumption +); `null` where unknown. */
  market_location_mw: readonly (number | null)[];
  /** Substitute and provisional values among the metered market locations' values. */
  market_location_quality: QualitySummary;
  /** Σ balancing-group sums, MW, when they are the settlement actual; else `null`. */
  balancing_group_mw: readonly (number | null)[] | null;
  /** Substitute and provisional values among the sums' values (with `balancing_group_mw`). */
  balancing_group_quality: QualitySummary | null;
  /** Imbalance price (reBAP or its estimate), EUR/MWh; `null` where not known. */
  price_short: readonly (number | null)[] | null;
  price_long: readonly (number | null)[] | null;
  /** Where each price comes from; `null` where none is known. */
  price_source: readonly (PriceSource | null)[] | null;
  /** ID AEP, EUR/MWh; `null` where not known (or none arrived). */
  id_aep: readonly (number | null)[] | null;
  /** Volume-weighted price of the BRP's own intraday trades, EUR/MWh; `null` where none. */
  trade_price: readonly (number | null)[] | null;
  /** Counts of the market locations (see `CompletenessSchema`). */
  locations: { metered: number; profile_settled: number; missing: number };
  by_source: AreaSettlement["accuracy"]["by_source"];
}

const r6 = (x: number) => Math.round(x * 1e6) / 1e6 || 0; // never -0
const r4 = (x: number) => Math.round(x * 1e4) / 1e4 || 0;
const r2 = (x: number) => Math.round(x * 100) / 100 || 0;
const or = <T>(x: T | null | undefined): T | null => x ?? null;

/** Imbalance (MWh), price and cost of one quarter-hour; all `null` when an input is missing. */
export function settleQuarterHour(
  actualMw: number | null,
  scheduleMw: number | null,
  short: number | null,
  long: number | null,
): { imbalance: number | null; price: number | null; cost: number | null } {
  if (actualMw === null || scheduleMw === null) return { imbalance: null, price: null, cost: null };
  const imbalance = (actualMw - scheduleMw) * 0.25;
  const price = imbalance < 0 ? long : short;
  return { imbalance, price, cost: price === null ? null : imbalance * price };
}

/** MAE, bias and nMAE of `schedule` against `actual` over the quarter-hours with both. */
export function accuracyOf(
  schedule: readonly (number | null)[] | null,
  actual: readonly (number | null)[],
): Accuracy {
  let n = 0, abs = 0, bias = 0, energy = 0;
  if (schedule) {
    for (let i = 0; i < actual.length; i++) {
      const a = actual[i], s = schedule[i];
      if (a === null || s === null || s === undefined) continue;
      n++;
      abs += Math.abs(s - a);
      bias += s - a;
      energy += Math.abs(a);
    }
  }
  if (n === 0) return { mae_mw: null, bias_mw: null, nmae_pct: null };
  return {
    mae_mw: r6(abs / n),
    bias_mw: r6(bias / n),
    nmae_pct: energy > 0 ? r4((abs / energy) * 100) : null,
  };
}

/** Settles one area. */
export function settleArea(inp: AreaInputs): AreaSettlement {
  const n = inp.quarter_hours.length;
  const bg = inp.balancing_group_mw;
  const actual = Array.from({ length: n }, (_, i) => or(bg ? bg[i] : inp.market_location_mw[i]));
  const sched = inp.schedule?.mw, da = inp.day_ahead?.mw, pre = inp.before_correction?.mw;
  const imbalance: (number | null)[] = [],
    price: (number | null)[] = [],
    cost: (number | null)[] = [];
  const daCost: (number | null)[] = [];
  let short = 0, long = 0, total = 0, daTotal = 0, preTotal = 0, priced = 0, estimated = 0;
  const source: (PriceSource | null)[] = [];
  for (let i = 0; i < n; i++) {
    const ps = or(inp.price_short?.[i]), pl = or(inp.price_long?.[i]);
    const known = ps !== null && pl !== null;
    const src = known ? inp.price_source?.[i] ?? "rebap" : null;
    source.push(src);
    if (known) priced++;
    if (src === "aep_estimate") estimated++;
    const q = settleQuarterHour(actual[i], or(sched?.[i]), ps, pl);
    const d = settleQuarterHour(actual[i], or(da?.[i]), ps, pl);
    imbalance.push(q.imbalance === null ? null : r6(q.imbalance));
    price.push(q.price);
    cost.push(q.cost === null ? null : r4(q.cost));
    daCost.push(d.cost === null ? null : r4(d.cost));
    if (q.imbalance !== null) {
      if (q.imbalance > 0) short += q.imbalance;
      else long -= q.imbalance;
    }
    if (q.cost !== null) total += q.cost;
    if (d.cost !== null) daTotal += d.cost;
    if (pre) preTotal += settleQuarterHour(actual[i], or(pre[i]), ps, pl).cost ?? 0;
  }
  if (!pre) preTotal = total;
  const worst = imbalance
    .map((im, index) => ({ im, index }))
    .filter((x): x is { im: number; index: number } => x.im !== null && x.im !== 0)
    .sort((a, b) => Math.abs(b.im) - Math.abs(a.im) || a.index - b.index)
    .slice(0, 10)
    .map(({ im, index }) => ({
      start: inp.quarter_hours[index],
      index,
      schedule_mw: or(sched?.[index]),
      actual_mw: actual[index] === null ? null : r6(actual[index]!),
      imbalance_mwh: im,
      price_eur_mwh: price[index],
      cost_eur: cost[index],
    }));
  const intraday = intradayEnergy(inp.before_correction ?? inp.schedule, inp, n);
  const quality = bg
    ? inp.balancing_group_quality ?? inp.market_location_quality
    : inp.market_location_quality;
  const complete = inp.locations.missing === 0 && priced === n && estimated === 0 &&
    quality.provisional_quarter_hours === 0 && actual.every((a) => a !== null) &&
    inp.schedule !== null;
  // From the rounded totals, so that the numbers shown subtract exactly. A post-delivery correction
  // moves imbalance to the counterparty: not what intraday did, so it is counted on its own.
  const avoided = inp.day_ahead ? r2(r2(daTotal) - r2(preTotal)) : null;
  const energyCost = inp.day_ahead && intraday.total !== null ? r2(intraday.total) : null;
  const totals: SettlementTotals = {
    short_mwh: r6(short),
    long_mwh: r6(long),
    cost_eur: r2(total),
    day_ahead_cost_eur: inp.day_ahead ? r2(daTotal) : null,
    imbalance_avoided_eur: avoided,
    intraday_energy_cost_eur: energyCost,
    intraday_saving_eur: avoided !== null && energyCost !== null ? r2(avoided - energyCost) : null,
    post_delivery_moved_eur: pre ? r2(r2(preTotal) - r2(total)) : null,
  };
  const out: AreaSettlement = {
    control_area: inp.control_area,
    name: inp.name,
    schedule_version: inp.schedule?.version ?? null,
    schedule_mw: Array.from({ length: n }, (_, i) => or(sched?.[i])),
    day_ahead_version: inp.day_ahead?.version ?? null,
    day_ahead_mw: Array.from({ length: n }, (_, i) => or(da?.[i])),
    actual_mw: actual.map((a) => a === null ? null : r6(a)),
    actual_source: bg ? "balancing_group_sum" : "market_locations",
    market_location_actual_mw: bg
      ? inp.market_location_mw.map((a) => a === null ? null : r6(a))
      : null,
    imbalance_mwh: imbalance,
    price_eur_mwh: price,
    price_source: source,
    cost_eur: cost,
    day_ahead_cost_eur: daCost,
    intraday_mwh: intraday.mwh,
    intraday_price_eur_mwh: intraday.price,
    intraday_price_source: intraday.source,
    intraday_cost_eur: intraday.cost,
    totals,
    accuracy: {
      schedule: accuracyOf(sched ?? null, actual),
      day_ahead: accuracyOf(da ?? null, actual),
      worst,
      by_source: inp.by_source,
    },
    completeness: {
      ...inp.locations,
      priced_quarter_hours: priced,
      estimated_quarter_hours: estimated,
      ...quality,
      quarter_hours: n,
      status: complete ? "final" : "provisional",
    },
  };
  RAW.set(out, {
    cost: total,
    day_ahead: inp.day_ahead ? daTotal : null,
    before_correction: preTotal,
    energy: inp.day_ahead ? intraday.total : null,
    corrected: pre !== undefined,
  });
  return out;
}

/** An area's totals before rounding (EUR), kept beside its settlement for the day's totals. */
interface RawTotals {
  cost: number;
  day_ahead: number | null;
  /** The cost against the schedule as delivery ended (= cost without a correction). */
  before_correction: number;
  energy: number | null;
  corrected: boolean;
}

const RAW = new WeakMap<AreaSettlement, RawTotals>();

/**
 * The day's totals over its areas: summed before rounding (docs/settlement.md, "Computation"), so
 * that the day's figure is the exact one (759.83 EUR where its areas' rounded figures add up to
 * 759.82), each derived figure from the rounded ones as for an area.
 */
export function dayTotals(areas: readonly AreaSettlement[]): SettlementTotals {
  const raws = areas.map((a) => RAW.get(a));
  const t = sumTotals(areas.map((a) => a.totals));
  if (raws.some((r) => !r)) return t;
  const sum = (f: (r: RawTotals) => number | null) => {
    let x = 0;
    for (const r of raws) {
      const v = f(r!);
      if (v === null) return null;
      x += v;
    }
    return r2(x);
  };
  const cost = sum((r) => r.cost)!, da = sum((r) => r.day_ahead);
  const pre = sum((r) => r.before_correction)!;
  const energy = da === null ? null : sum((r) => r.energy);
  const avoided = da === null ? null : r2(da - pre);
  return {
    ...t,
    cost_eur: cost,
    day_ahead_cost_eur: da,
    imbalance_avoided_eur: avoided,
    intraday_energy_cost_eur: energy,
    intraday_saving_eur: avoided !== null && energy !== null ? r2(avoided - energy) : null,
    post_delivery_moved_eur: raws.some((r) => r!.corrected) ? r2(pre - cost) : null,
  };
}

/** Totals over several areas (or days): sums; a figure only where every part has one. */
export function sumTotals(parts: readonly SettlementTotals[]): SettlementTotals {
  const all = (k: "day_ahead_cost_eur" | "imbalance_avoided_eur" | "intraday_energy_cost_eur") =>
    parts.length > 0 && parts.every((p) => p[k] !== null)
      ? r2(parts.reduce((a, p) => a + p[k]!, 0))
      : null;
  const cost = r2(parts.reduce((a, p) => a + p.cost_eur, 0));
  const daCost = all("day_ahead_cost_eur");
  const avoided = daCost === null ? null : r2(daCost - cost);
  const energy = daCost === null ? null : all("intraday_energy_cost_eur");
  const moved = parts.filter((p) => p.post_delivery_moved_eur !== null);
  const movedEur = moved.length
    ? r2(moved.reduce((a, p) => a + p.post_delivery_moved_eur!, 0))
    : null;
  return {
    short_mwh: r6(parts.reduce((a, p) => a + p.short_mwh, 0)),
    long_mwh: r6(parts.reduce((a, p) => a + p.long_mwh, 0)),
    cost_eur: cost,
    day_ahead_cost_eur: daCost,
    // Without the corrections' part: what the day-ahead and intraday versions left to the TSO.
    imbalance_avoided_eur: avoided === null ? null : r2(avoided - (movedEur ?? 0)),
    intraday_energy_cost_eur: energy,
    intraday_saving_eur: avoided !== null && energy !== null
      ? r2(avoided - (movedEur ?? 0) - energy)
      : null,
    post_delivery_moved_eur: movedEur,
  };
}

/**
 * The energy the intraday versions moved against the day-ahead version and what it cost
 * (docs/settlement.md, "What intraday saved"): per quarter-hour `(schedule − day-ahead) × 0.25 h`
 * of the schedule that stood when delivery ended (`delivered`: before a post-delivery correction)
 * MWh (> 0 bought, < 0 sold), valued at the volume-weighted price of the BRP's own trades where
 * given, else at ID AEP; the cost is `null` where energy moved and neither price is known, and so
 * is the total.
 */
function intradayEnergy(delivered: AreaInputs["schedule"], inp: AreaInputs, n: number) {
  const mwh: (number | null)[] = [], price: (number | null)[] = [], cost: (number | null)[] = [];
  const source: ("trades" | "id_aep" | null)[] = [];
  let total: number | null = 0;
  for (let i = 0; i < n; i++) {
    const s = or(delivered?.mw[i]), d = or(inp.day_ahead?.mw[i]);
    const e = s === null || d === null ? null : (s - d) * 0.25;
    const trade = or(inp.trade_price?.[i]), index = or(inp.id_aep?.[i]);
    const p = trade ?? index;
    mwh.push(e === null ? null : r6(e));
    price.push(p);
    source.push(trade !== null ? "trades" : index !== null ? "id_aep" : null);
    const c = e === null ? null : e === 0 ? 0 : p === null ? null : e * p;
    cost.push(c === null ? null : r4(c));
    if (e !== null && e !== 0) total = c === null || total === null ? null : total + c;
  }
  return { mwh, price, source, cost, total };
}
