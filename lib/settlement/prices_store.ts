/**
 * Stored imbalance prices (docs/settlement.md, "Imbalance prices"), EUR/MWh per quarter-hour of
 * one delivery day (`KEYS.imbalancePrices`, owned here), each with its source: the **reBAP**
 * (published after quality assurance, weeks after the month) or, until it is known, the TSOs'
 * operational **AEP estimate** (AEP-Schätzer), which is one price for both directions.
 * - A newer reBAP replaces the prices of the quarter-hours it carries, an estimate included;
 * - an estimate is stored only where no reBAP is known, and never replaces a reBAP;
 * - `N.A.` never erases a price that is known.
 * Records written before the source was kept hold reBAP prices only (their `price_source` absent).
 * @module
 */
import { retryKv } from "../store/kv.ts";
import { KEYS } from "../store/keys.ts";
import { quarterHourCount } from "../domain/delivery_day.ts";
import { pointsByDay } from "./day_split.ts";
import type { PricePoint } from "./rebap.ts";

/** Where a stored price comes from. */
export type PriceSource = "rebap" | "aep_estimate";

/** Prices of one day, EUR/MWh per quarter-hour; `null` = not known. */
export interface StoredPrices {
  day: string;
  /** reBAP "unterdeckt": a balancing group that is short pays this per MWh. */
  short: (number | null)[];
  /** reBAP "ueberdeckt": a balancing group that is long is paid this per MWh. */
  long: (number | null)[];
  /** Source of each price (`null` where none); absent in records written before: all reBAP. */
  price_source?: (PriceSource | null)[];
  updated_at: string;
  source: string;
}

/** What storing did. */
export interface PriceOutcome {
  /** Quarter-hours with a price that had none. */
  added: number;
  /** Quarter-hours whose earlier price was replaced by a different one. */
  replaced: number;
  unchanged: number;
  /** Rows with `N.A.` (left as they were). */
  unknown: number;
  /** reBAP: quarter-hours where it replaced an estimate. */
  replaced_estimates: number;
  /** Estimate: quarter-hours not taken because their reBAP is known. */
  kept_rebap: number;
  days: string[];
  /** Per day touched: quarter-hours whose reBAP replaced an estimate (for the repricing event). */
  repriced: { day: string; quarter_hours: number }[];
}

/** An outcome of nothing stored yet. */
export function noPrices(): PriceOutcome {
  return {
    added: 0,
    replaced: 0,
    unchanged: 0,
    unknown: 0,
    replaced_estimates: 0,
    kept_rebap: 0,
    days: [],
    repriced: [],
  };
}

/** The source of each price of a stored record (all reBAP in records written before sources). */
export function priceSources(p: StoredPrices): (PriceSource | null)[] {
  return p.price_source ?? p.short.map((v) => v === null ? null : "rebap");
}

/**
 * Stores checked price points (any order, any number of days) of one source.
 * @param from `rebap` or `aep_estimate` (one price for both directions)
 */
export async function storePrices(
  kv: Deno.Kv,
  points: readonly PricePoint[],
  from: PriceSource,
  source: string,
  nowMs: number,
): Promise<PriceOutcome> {
  const out = noPrices();
  const at = new Date(nowMs).toISOString();
  for (const [day, m] of pointsByDay(points)) {
    const c = await retryKv(`store prices of ${day}`, async () => {
      const e = await kv.get<StoredPrices>(KEYS.imbalancePrices(day));
      const n = quarterHourCount(day);
      const short = e.value?.short.slice() ?? new Array(n).fill(null);
      const long = e.value?.long.slice() ?? new Array(n).fill(null);
      const src = e.value ? priceSources(e.value).slice() : new Array(n).fill(null);
      const c = { added: 0, replaced: 0, unchanged: 0, unknown: 0, estimates: 0, kept: 0 };
      for (const [i, p] of m) {
        if (p.short === null || p.long === null) {
          c.unknown++;
          continue;
        }
        if (from === "aep_estimate" && src[i] === "rebap") {
          c.kept++;
          continue;
        }
        if (short[i] === null) c.added++;
        else if (short[i] === p.short && long[i] === p.long && src[i] === from) c.unchanged++;
        else c.replaced++;
        if (from === "rebap" && src[i] === "aep_estimate") c.estimates++;
        short[i] = p.short;
        long[i] = p.long;
        src[i] = from;
      }
      if (c.added + c.replaced === 0) return c;
      const rec: StoredPrices = { day, short, long, price_source: src, updated_at: at, source };
      return (await kv.atomic().check(e).set(e.key, rec).commit()).ok ? c : undefined;
    });
    out.added += c.added;
    out.replaced += c.replaced;
    out.unchanged += c.unchanged;
    out.unknown += c.unknown;
    out.replaced_estimates += c.estimates;
    out.kept_rebap += c.kept;
    out.days.push(day);
    if (c.estimates) out.repriced.push({ day, quarter_hours: c.estimates });
  }
  return out;
}

/** The prices of a day, `null` when none arrived. */
export async function pricesOfDay(kv: Deno.Kv, day: string): Promise<StoredPrices | null> {
  return (await kv.get<StoredPrices>(KEYS.imbalancePrices(day))).value;
}
