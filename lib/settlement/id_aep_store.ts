/**
 * Stored intraday index prices, ID AEP (docs/settlement.md, "Imbalance prices"): EUR/MWh per
 * quarter-hour of one delivery day (`KEYS.intradayPrices`, owned here), as the TSOs' data service
 * publishes them (`/IdAep`): per quarter-hour the volume-weighted price of the last 500 MW traded
 * intraday for it, `null` where too little was traded (`N.A.`). The net value of intraday
 * versions is computed from it. A newer file replaces the prices it carries; `N.A.` never erases
 * a known price.
 * @module
 */
import { quarterHourCount } from "../domain/delivery_day.ts";
import { retryKv } from "../store/kv.ts";
import { KEYS } from "../store/keys.ts";
import { pointsByDay } from "./day_split.ts";
import { noPrices, type PriceOutcome } from "./prices_store.ts";
import type { PricePoint } from "./rebap.ts";

/** ID AEP of one day, EUR/MWh per quarter-hour; `null` = not known or not determined. */
export interface StoredIdAep {
  day: string;
  price: (number | null)[];
  updated_at: string;
  source: string;
}

/** Stores checked ID AEP points (one price per row, in `short`). */
export async function storeIdAep(
  kv: Deno.Kv,
  points: readonly PricePoint[],
  source: string,
  nowMs: number,
): Promise<PriceOutcome> {
  const out = noPrices();
  const at = new Date(nowMs).toISOString();
  for (const [day, m] of pointsByDay(points)) {
    const c = await retryKv(`store ID AEP of ${day}`, async () => {
      const e = await kv.get<StoredIdAep>(KEYS.intradayPrices(day));
      const price = e.value?.price.slice() ?? new Array(quarterHourCount(day)).fill(null);
      const c = { added: 0, replaced: 0, unchanged: 0, unknown: 0 };
      for (const [i, { short: v }] of m) {
        if (v === null) c.unknown++;
        else if (price[i] === null) c.added++, price[i] = v;
        else if (price[i] === v) c.unchanged++;
        else c.replaced++, price[i] = v;
      }
      if (c.added + c.replaced === 0) return c;
      const rec: StoredIdAep = { day, price, updated_at: at, source };
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

/** The ID AEP of a day, `null` when none arrived. */
export async function idAepOfDay(kv: Deno.Kv, day: string): Promise<StoredIdAep | null> {
  return (await kv.get<StoredIdAep>(KEYS.intradayPrices(day))).value;
}
