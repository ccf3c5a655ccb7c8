/**
 * Market locations: the customer's master data (docs/pipeline.md, "Market locations"), stored under
 * `["market_locations", <malo_id>]`.
 * @module
 */
import type { z } from "zod";
import { MarketLocationInput } from "../wire/market_locations.ts";
import { getManyInRange } from "../store/kv.ts";
import {
  classTableForChange,
  commitMasterData,
  indexedRegistered,
  type LocationChange,
  type MasterDataChange,
  masterDataStamp,
  openDays,
  retryMasterData,
} from "./master_data.ts";
import { KEYS } from "../store/keys.ts";
import { putGrouped } from "./location_put_group.ts";

import type { MarketLocation } from "./market_location_record.ts";
export type { MarketLocation } from "./market_location_record.ts";

const key = KEYS.marketLocation;

/** Reads one market location. */
export async function getMarketLocation(
  kv: Deno.Kv,
  id: string,
): Promise<MarketLocation | null> {
  return (await kv.get<MarketLocation>(key(id))).value;
}

/** Stored fields that matter to the pipeline (everything but `updated_at`) are the same. */
function sameContent(a: MarketLocation | null, b: MarketLocation): boolean {
  return a !== null && a.malo_id === b.malo_id && a.control_area === b.control_area &&
    a.direction === b.direction && a.standard_load_profile === b.standard_load_profile &&
    a.annual_kwh === b.annual_kwh && a.name === b.name && a.weather_point === b.weather_point &&
    a.holiday_region === b.holiday_region &&
    (a.forecast_method ?? "auto") === (b.forecast_method ?? "auto");
}

/**
 * The fields as stored: `forecast_method` `auto`, the default, is left out (a record without it
 * means `auto`; docs/weather.md, "Market locations").
 */
function storedFields<T extends { forecast_method?: string }>(input: T): T {
  if (input.forecast_method !== "auto") return input;
  const { forecast_method: _, ...rest } = input;
  return rest as T;
}

/** A stored location as answered: `forecast_method` filled in with its default `auto`. */
export function asAnswered(
  location: MarketLocation,
): MarketLocation & { forecast_method: NonNullable<MarketLocation["forecast_method"]> } {
  return { ...location, forecast_method: location.forecast_method ?? "auto" };
}

/**
 * Creates or replaces a market location; returns it and whether it was new. Re-sending the same
 * fields changes nothing (the stored `updated_at` stays, no day turns stale). Committed with the
 * other single changes of this process waiting for the master-data lock (`./location_put_group.ts`).
 * @param atMs instant of the change, ms since the epoch
 * @param change when given, open delivery days are marked stale (see {@link MasterDataChange})
 * @throws {KvContentionError} when the key stayed contended through every retry
 */
export async function putMarketLocation(
  kv: Deno.Kv,
  id: string,
  input: z.infer<typeof MarketLocationInput>,
  atMs: number,
  change?: MasterDataChange,
): Promise<{ location: MarketLocation; created: boolean }> {
  const location: MarketLocation = {
    malo_id: id,
    ...storedFields(input),
    updated_at: new Date(atMs).toISOString(),
  };
  // Committed together with the other single changes waiting for the master-data lock.
  return await putGrouped(kv, location, atMs, change, sameContent);
}

/**
 * Creates or replaces several market locations in one atomic (all or nothing). Items whose
 * fields are unchanged are left alone.
 * @param change when given, open delivery days are marked stale (see {@link MasterDataChange})
 * @returns how many were new, replaced (changed) and unchanged
 * @throws {KvContentionError} when the keys stayed contended through every retry
 */
export async function putMarketLocations(
  kv: Deno.Kv,
  items: (z.infer<typeof MarketLocationInput> & { malo_id: string })[],
  atMs: number,
  change?: MasterDataChange,
): Promise<{ created: number; replaced: number; unchanged: number }> {
  const at = new Date(atMs).toISOString();
  return await retryMasterData(kv, "put market locations", async (turn) => {
    const read = await classTableForChange(kv); // before the locations: see commitMasterData
    // The open days are read beside the locations (both after the version).
    const days = change ? openDays(kv, atMs, change.gateClosureLocalTime) : Promise.resolve([]);
    days.catch(() => {}); // awaited in commitMasterData, or dropped when nothing changed
    const prev = await previousRecords(kv, read.master.versionstamp, items);
    let created = 0, replaced = 0, unchanged = 0;
    const changes: LocationChange[] = [];
    items.forEach((item, i) => {
      const next: MarketLocation = { ...storedFields(item), updated_at: at };
      if (sameContent(prev[i].value, next)) {
        unchanged++;
        return;
      }
      if (prev[i].value === null) created++;
      else replaced++;
      changes.push({ entry: prev[i], next });
    });
    if (!changes.length) return { created, replaced, unchanged };
    // No check per location (an atomic carries 100 checks at most, 10 over KV Connect): the
    // class table's check makes
    // the batch read again when anything changed master data meanwhile.
    const ok = await commitMasterData(
      kv,
      { ...read, openDays: days },
      changes,
      false,
      atMs,
      change,
      turn,
    );
    return ok ? { created, replaced, unchanged } : undefined;
  });
}

/**
 * The stored record of each item's location, in `items` order, read at the master-data version
 * entry with versionstamp `stamp` (the commit checks it): locations that the in-memory index of
 * that version does not know are not read — they were not registered then, and when anything was
 * registered since, the commit's check fails and the batch reads again. Without a current index,
 * every record is read.
 */
async function previousRecords(
  kv: Deno.Kv,
  stamp: string | null,
  items: { malo_id: string }[],
): Promise<Deno.KvEntryMaybe<MarketLocation>[]> {
  const ids = items.map((it) => it.malo_id);
  const registered = indexedRegistered(kv, stamp, ids);
  const toRead = registered ? ids.filter((id) => registered.has(id)) : ids;
  const found = toRead.length
    ? await getManyInRange<MarketLocation>(kv, KEYS.marketLocationPrefix, toRead)
    : [];
  const byId = new Map(found.map((e, k) => [toRead[k], e]));
  return ids.map((id) => byId.get(id) ?? { key: key(id), value: null, versionstamp: null });
}

/**
 * Deletes a market location; true when it existed.
 * @param change when given, open delivery days are marked stale (see {@link MasterDataChange})
 * @throws {KvContentionError} when the key stayed contended through every retry
 */
export async function deleteMarketLocation(
  kv: Deno.Kv,
  id: string,
  atMs: number = Date.now(),
  change?: MasterDataChange,
): Promise<boolean> {
  return await retryMasterData(kv, `delete market location ${id}`, async (turn) => {
    const read = await classTableForChange(kv); // before the location: see commitMasterData
    const prev = await kv.get<MarketLocation>(key(id));
    if (prev.value === null) return false;
    const ok = await commitMasterData(
      kv,
      read,
      [{ entry: prev, next: null }],
      true,
      atMs,
      change,
      turn,
    );
    return ok ? true : undefined;
  });
}

/**
 * Lists market locations in MaLo-ID order.
 * @param opts `limit` (all when absent), `after` a MaLo-ID to continue after
 */
export async function listMarketLocations(
  kv: Deno.Kv,
  opts: { limit?: number; after?: string } = {},
): Promise<MarketLocation[]> {
  const out: MarketLocation[] = [];
  const selector = opts.after ? KEYS.marketLocations(opts.after) : KEYS.marketLocations();
  for await (
    const e of kv.list<MarketLocation>(selector, { limit: opts.limit, batchSize: 1000 })
  ) out.push(e.value);
  return out;
}

/**
 * The registered MaLo-IDs among `ids` (a batch of up to 500): from the in-memory index when it
 * reflects the current master-data version (one small read), else read from the store (one range
 * read) while the index is built in the background.
 */
export async function registeredMarketLocations(
  kv: Deno.Kv,
  ids: string[],
): Promise<Set<string>> {
  const known = indexedRegistered(kv, await masterDataStamp(kv), ids);
  if (known) return known;
  const out = new Set<string>();
  const entries = await getManyInRange<MarketLocation>(kv, KEYS.marketLocationPrefix, ids);
  for (const e of entries) if (e.value !== null) out.add(e.value.malo_id);
  return out;
}

/**
 * The market locations `ids` (any number), `null` where one is not registered; 10-key reads, all
 * concurrently.
 */
export async function marketLocationsByIds(
  kv: Deno.Kv,
  ids: string[],
): Promise<(MarketLocation | null)[]> {
  const entries = await getManyInRange<MarketLocation>(kv, KEYS.marketLocationPrefix, ids);
  return entries.map((e) => e.value);
}
