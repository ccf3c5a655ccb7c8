/**
 * The words and numbers of the console's "after delivery" view (docs/console_after_delivery.md):
 * the settlement of a day or a month (`lib/wire/settlement.ts`) as sentences, with every number in
 * the operator's locale and its unit always beside it, written by the rules of
 * `format.ts` (docs/console.md, "Numbers"). The words stay English, like the rest of the console.
 * A missing value (`null` in the wire shape) is "—", never 0. Pure: the locale and the clock are
 * parameters.
 *
 * Sign convention (docs/settlement.md, reBAP): imbalance > 0 is short, < 0 long; cost > 0 the
 * balancing group pays.
 *
 * @example
 * totalsSentence({ day: "2027-03-09", where: "Amprion", totals, locale: "en", nowMs });
 * // "Yesterday in Amprion: 3.20 MWh short, 1.10 MWh long, 412.50 EUR; the day-ahead schedule alone: 1,030.00 EUR."
 * @module
 */
import type { AreaSettlement, SettlementTotals } from "../wire/settlement.ts";
import { relativeDay, weekdayDate } from "./day_texts.ts";
import { tsoName } from "../fahrplan/tso_names.ts";
import {
  energy,
  energyTable,
  formatNumber,
  MISSING,
  money,
  moneyTable,
  percent,
  power,
} from "./format.ts";

export { formatNumber, MISSING, operatorLocale } from "./format.ts";

/** Completeness of one area (`lib/wire/settlement.ts`). */
export type Completeness = AreaSettlement["completeness"];
/** One source of the forecast error (`lib/wire/settlement.ts`). */
export type DeviationSource = AreaSettlement["accuracy"]["by_source"][number];

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** `1 market location`, `2 market locations`: a count with the noun in its number (`en` words). */
export function count(n: number, one: string, many: string, locale: string): string {
  return `${formatNumber(n, 0, locale)} ${n === 1 ? one : many}`;
}

/**
 * One quarter-hour's imbalance in words: `580 kWh short`, `1.20 MWh long`, `balanced` only when it
 * is exactly 0 (a few kWh are an imbalance, and cost money), or "—" when unknown.
 */
export function imbalanceText(v: number | null | undefined, locale: string): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return MISSING;
  if (v === 0) return "balanced";
  return `${energy(Math.abs(v), locale)} ${v > 0 ? "short" : "long"}`;
}

/** How an area is named: the TSO's short name from the answer, else by EIC, else the EIC. */
export function areaName(a: Pick<AreaSettlement, "control_area" | "name">): string {
  return a.name || tsoName(a.control_area) || a.control_area;
}

/** `Yesterday`, `Today` or `Wed 25 Nov`: how a sentence names the delivery day. */
export function dayWords(day: string, nowMs: number): string {
  const rel = relativeDay(day, nowMs);
  return rel ? rel[0].toUpperCase() + rel.slice(1) : weekdayDate(day);
}

/** `March 2027` for `2027-03`. */
export function monthWords(month: string): string {
  const [y, m] = month.split("-").map(Number);
  return MONTHS[m - 1] ? `${MONTHS[m - 1]} ${y}` : month;
}

/**
 * How the figures of a totals sentence are written: the short and the long energy (MWh in), the
 * cost and the day-ahead cost (EUR in). Where the sentence stands beside its parts (a day over its
 * areas, a month over its days), each is the format of its whole group (`energyTable`,
 * `moneyTable` of `format.ts`), so the parts shown add up to the total shown.
 */
export interface TotalsFormat {
  short: (mwh: number) => string;
  long: (mwh: number) => string;
  cost: (eur: number) => string;
  dayAhead: (eur: number) => string;
}

/** Figures written on their own: {@link energy} and {@link money}. */
export const plainFormat = (locale: string): TotalsFormat => ({
  short: (v) => energy(v, locale),
  long: (v) => energy(v, locale),
  cost: (v) => money(v, locale),
  dayAhead: (v) => money(v, locale),
});

/**
 * The formats of totals shown with their parts: the short and long energy and the costs of every
 * part and of the total alike (docs/console.md, "Numbers").
 */
export function totalsFormat(
  parts: readonly SettlementTotals[],
  total: SettlementTotals,
  locale: string,
): TotalsFormat {
  const group = (k: "short_mwh" | "long_mwh" | "cost_eur" | "day_ahead_cost_eur") => ({
    parts: parts.map((p) => p[k] ?? NaN),
    total: total[k] ?? NaN,
  });
  return {
    short: energyTable([group("short_mwh")], locale),
    long: energyTable([group("long_mwh")], locale),
    cost: moneyTable([group("cost_eur")], locale),
    dayAhead: moneyTable([group("day_ahead_cost_eur")], locale),
  };
}

/** A cost with what it means when negative: `412.50 EUR`, `-12.00 EUR (received)`. */
function costWords(v: number, money: (eur: number) => string): string {
  return `${money(v)}${v < 0 && money(v) !== money(0) ? " (received)" : ""}`;
}

/**
 * Short, long, cost and the day-ahead comparison: the body of every totals sentence.
 * @param f how the figures are written (default each on its own, {@link plainFormat})
 */
export function totalsWords(t: SettlementTotals, locale: string, f = plainFormat(locale)): string {
  const base = `${f.short(t.short_mwh)} short, ${f.long(t.long_mwh)} long, ${
    costWords(t.cost_eur, f.cost)
  }`;
  return t.day_ahead_cost_eur === null
    ? `${base}; no day-ahead version to compare`
    : `${base}; the day-ahead schedule alone: ${costWords(t.day_ahead_cost_eur, f.dayAhead)}`;
}

/**
 * The totals in one sentence (issue 27, item 4): "Yesterday in Amprion: 3.2 MWh short, 1.1 MWh
 * long, 412.50 EUR; the day-ahead schedule alone: 1,030.00 EUR."
 * @param where the area's name, or e.g. `all 4 areas`
 */
export function totalsSentence(
  o: {
    day: string;
    where: string;
    totals: SettlementTotals;
    locale: string;
    nowMs: number;
    format?: TotalsFormat;
  },
): string {
  return `${dayWords(o.day, o.nowMs)} in ${o.where}: ${totalsWords(o.totals, o.locale, o.format)}.`;
}

/**
 * What the intraday versions did against the day-ahead schedule alone, net of the energy they
 * moved (docs/settlement.md, "What intraday saved"): "the intraday versions saved 512.30 EUR net
 * (617.50 EUR of imbalance avoided, less 105.20 EUR for the intraday energy)"; while the cost of
 * that energy is unknown (no ID AEP), "the intraday versions avoided 617.50 EUR of imbalance,
 * before the cost of the intraday energy"; `null` without a day-ahead version.
 */
export function savingWords(t: SettlementTotals, locale: string): string | null {
  const intraday = intradayWords(t, locale);
  const moved = t.post_delivery_moved_eur;
  if (moved === null) return intraday;
  const corr = `the post-delivery correction moved ${
    money(Math.abs(moved), locale)
  } of imbalance cost ${moved >= 0 ? "to" : "from"} the counterparty`;
  return intraday ? `${intraday}; ${corr}` : corr;
}

/** What the intraday versions saved, net (see {@link savingWords}). */
function intradayWords(t: SettlementTotals, locale: string): string | null {
  const gross = t.imbalance_avoided_eur, energy = t.intraday_energy_cost_eur;
  const net = t.intraday_saving_eur;
  if (gross === null) return null;
  const zero = (v: number) => formatNumber(v, 2, locale) === formatNumber(0, 2, locale);
  if (net === null || energy === null) {
    if (zero(gross)) return "the intraday versions changed nothing in imbalance cost";
    return `the intraday versions ${gross > 0 ? "avoided" : "added"} ${
      money(Math.abs(gross), locale)
    } of imbalance, before the cost of the intraday energy`;
  }
  if (zero(gross) && zero(energy)) return "the intraday versions changed nothing in cost";
  const how = `${money(gross, locale)} of imbalance avoided, ${energy >= 0 ? "less" : "plus"} ${
    money(Math.abs(energy), locale)
  } ${energy >= 0 ? "for" : "from"} the intraday energy`;
  return net >= 0
    ? `the intraday versions saved ${money(net, locale)} net (${how})`
    : `the intraday versions cost ${money(-net, locale)} net (${how})`;
}

/**
 * Completeness in words: "40 metered · 120 profile-settled · 2 missing market locations · 94 of
 * 96 quarter-hours priced". A location counts as metered only with every quarter-hour
 * (docs/settlement.md), so with `actualQuarterHours` (quarter-hours with an actual, of the area)
 * below the day's count, the line adds "actual in 95 of 96 quarter-hours": a missing location
 * may be missing only one of them.
 */
export function completenessWords(
  c: Completeness,
  locale: string,
  actualQuarterHours?: number,
): string {
  const n = (v: number) => formatNumber(v, 0, locale);
  const actual = actualQuarterHours !== undefined && actualQuarterHours < c.quarter_hours
    ? ` · actual in ${n(actualQuarterHours)} of ${n(c.quarter_hours)} quarter-hours`
    : "";
  return `${n(c.metered)} metered · ${n(c.profile_settled)} profile-settled · ${
    count(c.missing, "missing market location", "missing market locations", locale)
  } · ${n(c.priced_quarter_hours)} of ${n(c.quarter_hours)} quarter-hours priced${actual}${
    qualityWords(c, locale)
  }`;
}

/**
 * What of the actual and the prices is not final data, in words, each part after " · ":
 * "3 quarter-hours substitute values (interpolation, communication failure)", "4 quarter-hours
 * provisional values", "92 quarter-hours priced by the AEP estimate"; empty when none.
 */
export function qualityWords(c: Completeness, locale: string): string {
  const parts: string[] = [];
  if (c.substitute_quarter_hours > 0) {
    const kinds = c.substitutes.map((k) =>
      c.substitutes.length > 1
        ? `${k.method_text}, ${k.reason_text}: ${formatNumber(k.quarter_hours, 0, locale)}`
        : `${k.method_text}, ${k.reason_text}`
    );
    parts.push(
      `${
        count(c.substitute_quarter_hours, "quarter-hour", "quarter-hours", locale)
      } substitute values (${kinds.join("; ")})`,
    );
  }
  if (c.provisional_quarter_hours > 0) {
    parts.push(
      `${
        count(c.provisional_quarter_hours, "quarter-hour", "quarter-hours", locale)
      } provisional values`,
    );
  }
  if (c.estimated_quarter_hours > 0) {
    parts.push(
      `${
        count(c.estimated_quarter_hours, "quarter-hour", "quarter-hours", locale)
      } priced by the AEP estimate`,
    );
  }
  return parts.map((p) => ` · ${p}`).join("");
}

/** Why an area is still provisional, in words; `null` when final. */
export function provisionalReason(c: Completeness, locale: string): string | null {
  if (c.status === "final") return null;
  const why: string[] = [];
  if (c.missing > 0) {
    why.push(
      count(c.missing, "market location", "market locations", locale) + " without complete actuals",
    );
  }
  const unpriced = c.quarter_hours - c.priced_quarter_hours;
  if (unpriced > 0) {
    why.push(count(unpriced, "quarter-hour", "quarter-hours", locale) + " without a price");
  }
  if (c.provisional_quarter_hours > 0) {
    why.push(
      count(c.provisional_quarter_hours, "quarter-hour", "quarter-hours", locale) +
        " with provisional metered values",
    );
  }
  if (c.estimated_quarter_hours > 0) {
    why.push(
      "estimated: the reBAP is published after quality assurance (" +
        count(c.estimated_quarter_hours, "quarter-hour", "quarter-hours", locale) +
        " priced by the TSOs' AEP estimate)",
    );
  }
  return `provisional${why.length ? `: ${why.join(", ")}` : ""}; the numbers can still change`;
}

/** A source of the forecast error in words: customer forecasts, learned forecasts, a profile. */
export function sourceName(source: string): string {
  if (source === "customer") return "customer forecasts";
  if (source === "none") return "metered without a forecast";
  if (source === "customer_corrected") return "corrected customer forecasts";
  if (/^[A-Z][A-Z0-9]{1,3}$/.test(source)) return `profile ${source}`;
  return `${source} forecasts`;
}

/**
 * The sources of the forecast error, largest first, with their share of the error of all
 * sources: "profile H25: 3.10 MWh (62.0 %) over 12 locations, mean 400 kW".
 */
export function sourceLines(sources: readonly DeviationSource[], locale: string): string[] {
  const sorted = [...sources].sort((a, b) =>
    (b.abs_deviation_mwh ?? -1) - (a.abs_deviation_mwh ?? -1)
  );
  const total = sorted.reduce((s, x) => s + (x.abs_deviation_mwh ?? 0), 0);
  return sorted.map((s) => {
    const name = sourceName(s.source);
    const share = total > 0 && s.abs_deviation_mwh !== null
      ? ` (${percent((s.abs_deviation_mwh / total) * 100, locale)})`
      : "";
    return `${name}: ${energy(s.abs_deviation_mwh, locale)}${share} over ${
      count(s.locations, "location", "locations", locale)
    }, mean ${power(s.mad_mw, locale)}${savedWords(s, locale)}`;
  });
}

/**
 * What a learned or corrected forecast saved against the one it replaced (docs/settlement.md,
 * "What learned forecasts saved"): `; 1.25 MWh less imbalance than the load 7 days before
 * (125.00 EUR at reBAP)`, or `more` when it did worse; empty for other sources.
 */
export function savedWords(s: DeviationSource, locale: string): string {
  const v = s.saved;
  if (!v) return "";
  const than = v.replaced === "customer" ? "the customer's own forecast" : "the load 7 days before";
  const cost = v.eur === null ? "" : ` (${money(Math.abs(v.eur), locale)} at reBAP)`;
  return `; ${energy(Math.abs(v.mwh), locale)} ${
    v.mwh < 0 ? "more" : "less"
  } imbalance than ${than}${cost}`;
}

/**
 * Σ(actual − our market-location sum) × 0.25 h over quarter-hours where both are known, MWh:
 * how far the TSO's balancing-group sum is from ours; `null` without a pair.
 */
export function sumDifferenceMwh(a: AreaSettlement): number | null {
  const own = a.market_location_actual_mw;
  if (!own) return null;
  let sum = 0;
  let seen = false;
  a.actual_mw.forEach((v, i) => {
    const o = own[i];
    if (v === null || o === null || o === undefined) return;
    sum += (v - o) * 0.25;
    seen = true;
  });
  return seen ? sum : null;
}

/** One of the costliest quarter-hours of an area. */
export interface CostlyQuarterHour {
  /** Position in the day's arrays, 0-based. */
  index: number;
  /** ISO-8601 UTC start. */
  start: string;
  imbalance_mwh: number | null;
  price_eur_mwh: number | null;
  /** EUR, > 0 the balancing group pays. */
  cost_eur: number;
}

/**
 * The quarter-hours that cost most, by |cost| (EUR) largest first — money is what the operator
 * answers for: a large imbalance at a low price costs less than a small one at a high price — then
 * by |imbalance| and time; at most `n`. Quarter-hours without a known cost, or with none, are left
 * out.
 * @param quarterHours the day's UTC starts (`quarter_hours` of the settlement)
 */
export function costliest(
  a: Pick<AreaSettlement, "imbalance_mwh" | "price_eur_mwh" | "cost_eur">,
  quarterHours: readonly string[],
  n = 10,
): CostlyQuarterHour[] {
  const out: CostlyQuarterHour[] = [];
  a.cost_eur.forEach((cost, index) => {
    // A quarter-hour that cost nothing is none of the costliest.
    if (cost === null || !Number.isFinite(cost) || cost === 0) return;
    out.push({
      index,
      start: quarterHours[index],
      imbalance_mwh: a.imbalance_mwh[index] ?? null,
      price_eur_mwh: a.price_eur_mwh[index] ?? null,
      cost_eur: cost,
    });
  });
  return out.sort((x, y) =>
    Math.abs(y.cost_eur) - Math.abs(x.cost_eur) ||
    Math.abs(y.imbalance_mwh ?? 0) - Math.abs(x.imbalance_mwh ?? 0) || x.index - y.index
  ).slice(0, n);
}
