/**
 * The registered-MaLo-ID index under a stream of this process's own single changes
 * (lib/pipeline/master_data.ts, docs/mixed-load.md): a lookup that reads the master-data version
 * entry between a change's commit and the change's report to the index starts no listing of every
 * market location — the index is current once the change is reported — while a change by another
 * writer still gets the index built again.
 */
import assert from "node:assert/strict";
import { marketLocationIndexSettled } from "../../lib/pipeline/master_data.ts";
import {
  putMarketLocation,
  putMarketLocations,
  registeredMarketLocations,
} from "../../lib/pipeline/market_locations.ts";
import { KEYS } from "../../lib/store/keys.ts";
import { AREAS, maloId } from "../support/portfolio.ts";

const input = (kwh: number) => ({
  control_area: AREAS.amprion,
  direction: "consumption" as const,
  standard_load_profile: "H0" as const,
  annual_kwh: kwh,
});

/** The store, and how many listings of the market locations it served. */
async function countingStore(): Promise<{ kv: Deno.Kv; listings: () => number }> {
  const kv = await Deno.openKv(":memory:");
  let listings = 0;
  const counting = new Proxy(kv, {
    get(target, prop) {
      const v = Reflect.get(target, prop);
      if (prop === "atomic") {
        // A commit reports back 5 ms after it landed: lookups meanwhile read the new version.
        return () => {
          const op = target.atomic();
          const commit = op.commit.bind(op);
          op.commit = async () => {
            const r = await commit();
            await new Promise((ok) => setTimeout(ok, 5));
            return r;
          };
          return op;
        };
      }
      if (prop === "list") {
        return (sel: { prefix?: Deno.KvKey }, opts?: Deno.KvListOptions) => {
          if (sel.prefix?.length === 1 && sel.prefix[0] === KEYS.marketLocationPrefix[0]) {
            listings++;
          }
          return target.list(sel as Deno.KvListSelector, opts);
        };
      }
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  return { kv: counting, listings: () => listings };
}

Deno.test("registered MaLo-IDs: lookups racing this process's own changes list nothing again", async () => {
  const { kv, listings } = await countingStore();
  try {
    const ids = Array.from({ length: 50 }, (_, i) => maloId(i));
    await putMarketLocations(kv, ids.map((id) => ({ malo_id: id, ...input(1000) })), 0);
    await registeredMarketLocations(kv, ids); // the first lookup builds the index
    await marketLocationIndexSettled(kv);
    const built = listings(); // the index build (and the first class table's)
    assert.ok(built >= 1);
    // 40 single changes, each raced by lookups that read the version entry meanwhile.
    for (let round = 0; round < 40; round++) {
      const change = putMarketLocation(kv, ids[round], input(2000 + round), round);
      const lookups = Array.from(
        { length: 4 },
        (_, i) =>
          new Promise<Set<string>>((ok) =>
            setTimeout(() => ok(registeredMarketLocations(kv, ids)), 2 * i)
          ),
      );
      await change;
      for (const found of await Promise.all(lookups)) assert.equal(found.size, 50);
    }
    await marketLocationIndexSettled(kv);
    assert.equal(listings(), built, "the index was listed again during this process's changes");
    // Another writer (a raw commit that bumps the version entry, as a replica's change does):
    // the index is behind and is built again.
    const master = await kv.get<Deno.KvU64>(KEYS.masterDataVersion);
    assert.ok(master.value);
    await kv.atomic().check(master).set(master.key, new Deno.KvU64(master.value.value + 1n))
      .commit();
    assert.equal((await registeredMarketLocations(kv, ids)).size, 50);
    await marketLocationIndexSettled(kv);
    assert.equal(listings(), built + 1);
  } finally {
    kv.close();
  }
});
