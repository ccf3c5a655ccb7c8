/**
 * Stored reBAP prices (docs/settlement.md, "Imbalance prices"), EUR/MWh per quarter-hour of one
 * delivery day (`KEYS.imbalancePrices`, owned here). A newer file replaces the prices of the
 * quarter-hours it carries a price for; `N.A.` never erases a price that is known.
 * @module
 */
import { retryKv } from "../store/kv.ts";
import { KEYS } from "../store/keys.ts";
import { quarterHourCount } from "../domain/delivery_day.ts";
import { splitByDay } from "./day_split.ts";
import type { PricePoint } from "./rebap.ts";

/** Prices of one day, EUR/MWh per quarter-hour; `null` = not known. */
export interface StoredPrices {
  day: string;
  /** reBAP "unterdeckt": a balancing group that is short pays this per MWh. */
  short: (number | null)[];
  /** reBAP "ueberdeckt": a balancing group that is long is paid this per MWh. */
  long: (number | null)[];
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
  days: string[];
}

/** Stores checked price points (any order, any number of days). */
export async function storePrices(
  kv: Deno.Kv,
  points: readonly PricePoint[],
  source: string,
  nowMs: number,
): Promise<PriceOutcome> {
  const out: PriceOutcome = { added: 0, replaced: 0, unchanged: 0, unknown: 0, days: [] };
  const byDay = new Map<string, Map<number, PricePoint>>();
  for (const p of points) {
    const [part] = splitByDay(p.start, [0]);
    const m = byDay.get(part.day) ?? new Map();
    m.set([...part.values.keys()][0], p);
    byDay.set(part.day, m);
  }
  const at = new Date(nowMs).toISOString();
  for (const [day, m] of [...byDay].sort(([a], [b]) => a.localeCompare(b))) {
    const c = await retryKv(`store prices of ${day}`, async () => {
      const e = await kv.get<StoredPrices>(KEYS.imbalancePrices(day));
      const n = quarterHourCount(day);
      const short = e.value?.short.slice() ?? new Array(n).fill(null);
      const long = e.value?.long.slice() ?? new Array(n).fill(null);
      const c = { added: 0, replaced: 0, unchanged: 0, unknown: 0 };
      for (const [i, p] of m) {
        if (p.short === null || p.long === null) {
          c.unknown++;
          continue;
        }
        if (short[i] === null) c.added++;
        else if (short[i] === p.short && long[i] === p.long) c.unchanged++;
        else c.replaced++;
        short[i] = p.short;
        long[i] = p.long;
      }
      if (c.added + c.replaced === 0) return c;
      const rec: StoredPrices = { day, short, long, updated_at: at, source };
      return (await kv.atomic().check(e).set(e.key, rec).commit()).ok ? c : undefined;
    });
    out.added += c.added;
    out.replaced += c.replaced;
    out.unchanged += c.unchanged;
    out.unknown += c.unknown;
    out.days.push(day);
  }
  return out;
}

/** The prices of a day, `null` when none arrived. */
export async function pricesOfDay(kv: Deno.Kv, day: string): Promise<StoredPrices | null> {
  return (await kv.get<StoredPrices>(KEYS.imbalancePrices(day))).value;
}
