/**
 * The master-data facts the settlement of a day needs of each metered market location
 * (docs/settlement.md, "Inputs" and "Cost"): control area, direction, standard load profile and
 * annual energy. Read from the stored locations (`./market_locations.ts`) and kept per store in
 * memory for the master-data version entry they were read under (its versionstamp, bumped in the
 * same atomic as every change of master data, `./master_data.ts`): a second settlement of the
 * same master data — the month view settles every day, a page reloads — reads no location again,
 * and any change of master data, also by another process on the same store, drops them all.
 *
 * Besides the map, the IDs of the last pass are kept in the order they were asked for: a pass
 * over a day asks in MaLo-ID order (the order of the day's actuals), so most IDs are found by
 * comparing with the next ID of the last pass instead of a lookup in a map of 100,000 entries
 * (docs/settlement.md, "Cost"). A hit is always the same ID, so any order stays correct.
 * @module
 */
import { masterDataStamp } from "./master_data.ts";
import { type MarketLocation, marketLocationsByIds } from "./market_locations.ts";

/** What the settlement takes of a market location. */
export type LocationFacts = Pick<
  MarketLocation,
  "control_area" | "direction" | "standard_load_profile" | "annual_kwh"
>;

/** Facts kept per store at most; beyond, the cache starts again (memory ~100 bytes each). */
const MAX_FACTS = 2_000_000;

/** The IDs one pass asked for, in its order, with their facts. */
interface Pass {
  ids: string[];
  facts: (LocationFacts | null)[];
}

/**
 * Per store: the facts read under the master-data version entry with versionstamp `stamp`, and
 * the last pass under it.
 */
const cache = new WeakMap<
  Deno.Kv,
  { stamp: string; facts: Map<string, LocationFacts | null>; last: Pass | null }
>();

/** A reader of facts for one settlement: the master-data stamp is read once, at its start. */
export interface FactsReader {
  /** The facts of `ids`, `null` where a location is not registered; in the order of `ids`. */
  read(ids: string[]): Promise<(LocationFacts | null)[]>;
}

/**
 * A reader of location facts for one pass over a day. The stamp is read before any location, so
 * facts kept under it are never older than it; a change after it gives the next pass another
 * stamp, and the kept facts are dropped.
 */
export async function locationFacts(kv: Deno.Kv): Promise<FactsReader> {
  const stamp = await masterDataStamp(kv);
  let kept = stamp === null ? undefined : cache.get(kv);
  if (stamp !== null && kept?.stamp !== stamp) {
    cache.set(kv, kept = { stamp, facts: new Map(), last: null });
  }
  // The last pass, walked alongside this one; this pass is the next one's.
  const last = kept?.last ?? null;
  const pass: Pass = { ids: [], facts: [] };
  if (kept) kept.last = pass;
  let at = 0;
  /** The kept facts of `id` (`null`: not registered), `undefined` when none are kept. */
  const keptOf = (id: string): LocationFacts | null | undefined => {
    if (last) {
      const ids = last.ids;
      while (at < ids.length && ids[at] < id) at++;
      if (at < ids.length && ids[at] === id) return last.facts[at++];
    }
    return kept?.facts.get(id);
  };
  return {
    async read(ids) {
      const facts = kept?.facts;
      const out = new Array<LocationFacts | null | undefined>(ids.length);
      const missing: number[] = [];
      for (let i = 0; i < ids.length; i++) {
        const f = keptOf(ids[i]); // null: kept as not registered
        if (f === undefined) missing.push(i);
        else out[i] = f;
      }
      if (missing.length) {
        const locs = await marketLocationsByIds(kv, missing.map((i) => ids[i]));
        if (facts && facts.size + missing.length > MAX_FACTS) facts.clear();
        missing.forEach((i, k) => {
          const l = locs[k];
          const f = l && {
            control_area: l.control_area,
            direction: l.direction,
            standard_load_profile: l.standard_load_profile,
            annual_kwh: l.annual_kwh,
          };
          out[i] = f;
          facts?.set(ids[i], f);
        });
      }
      if (kept) {
        for (let i = 0; i < ids.length; i++) {
          pass.ids.push(ids[i]);
          pass.facts.push(out[i] as LocationFacts | null);
        }
      }
      return out as (LocationFacts | null)[];
    },
  };
}
