/**
 * Market locations: the customer's master data (docs/pipeline.md, "Market locations"), stored under
 * `["market_locations", <malo_id>]`.
 * @module
 */
import { z } from "zod";
import { eicProblem } from "../domain/eic.ts";
import { maloProblem } from "../domain/malo.ts";
import { PROFILE_CODES } from "../domain/slp/profile.ts";
import { addDays, deliveryDay, localDayOf } from "../domain/delivery_day.ts";
import { getManyChunked, retryKv } from "../store/kv.ts";
import { type DayState, inputChanged, updateDay, writeDay } from "./day_state.ts";
import { KEYS } from "../store/keys.ts";

/** Path parameter: a MaLo-ID with a valid check digit. */
export const MaloId = z.string().superRefine((v, ctx) => {
  const p = maloProblem(v);
  if (p) {
    ctx.addIssue({
      code: "custom",
      message: `not a valid MaLo-ID: ${p}`,
      params: { type: "value_error.malo_id" },
    });
  }
});

/** An EIC with a valid check character. */
export const Eic = z.string().superRefine((v, ctx) => {
  const p = eicProblem(v);
  if (p) {
    ctx.addIssue({
      code: "custom",
      message: `not a valid EIC: ${p}`,
      params: { type: "value_error.eic" },
    });
  }
});

/** Body of `PUT /v1/market-locations/{malo_id}`. */
export const MarketLocationInput = z.strictObject({
  control_area: Eic,
  direction: z.enum(["consumption", "generation"]),
  standard_load_profile: z.enum(PROFILE_CODES).optional(),
  annual_kwh: z.number().positive().max(1e10).optional(),
  name: z.string().max(200).optional(),
}).superRefine((v, ctx) => {
  if (v.standard_load_profile && v.annual_kwh === undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["annual_kwh"],
      message: "required with standard_load_profile (annual energy in kWh)",
      params: { type: "missing" },
    });
  }
});

/** A stored market location. */
export interface MarketLocation extends z.infer<typeof MarketLocationInput> {
  /** 11-digit MaLo-ID. */
  malo_id: string;
  /** ISO-8601 UTC instant of the last change. */
  updated_at: string;
}

/** Schema of a stored market location (responses). */
export const MarketLocationSchema = z.object({
  malo_id: z.string(),
  control_area: z.string(),
  direction: z.enum(["consumption", "generation"]),
  standard_load_profile: z.enum(PROFILE_CODES).optional(),
  annual_kwh: z.number().optional(),
  name: z.string().optional(),
  updated_at: z.string(),
});

const key = KEYS.marketLocation;
const MASTER_VERSION = KEYS.masterDataVersion;

/** Counter bumped by every change of master data (0 = never any market location). */
export async function masterDataVersion(kv: Deno.Kv): Promise<number> {
  const v = (await kv.get<Deno.KvU64>(MASTER_VERSION)).value;
  return v ? Number(v.value) : 0;
}

/** Reads one market location. */
export async function getMarketLocation(
  kv: Deno.Kv,
  id: string,
): Promise<MarketLocation | null> {
  return (await kv.get<MarketLocation>(key(id))).value;
}

/**
 * Who changes master data, and how to tell which delivery days are still open. When given, every
 * stored delivery day whose gate closure is still ahead gets its `input_version` bumped in the
 * same atomic as the change (`last_input.source = "master_data"`), so its aggregate, file and
 * submission turn stale and the orchestrator redoes them before gate closure: a market location
 * that moves to another control area, changes direction, profile or annual energy, or is
 * removed changes the open position.
 */
export interface MasterDataChange {
  /** Caller name, recorded as `last_input.by` of the days marked stale. */
  by: string;
  /** Gate closure `HH:MM` (Europe/Berlin, day before): only days before theirs are marked. */
  gateClosureLocalTime: string;
}

/** Stored fields that matter to the pipeline (everything but `updated_at`). */
function sameContent(a: MarketLocation | null, b: MarketLocation): boolean {
  if (!a) return false;
  const strip = ({ updated_at: _, ...rest }: MarketLocation) => rest;
  const x = strip(a) as Record<string, unknown>;
  const y = strip(b) as Record<string, unknown>;
  const keys = new Set([...Object.keys(x), ...Object.keys(y)]);
  return [...keys].every((k) => x[k] === y[k]);
}

/**
 * Day states that a master-data change can make stale: gate closure still ahead at `nowMs`, and
 * some step already recorded (a day nothing has consumed yet cannot be stale). Date order.
 */
async function openDays(
  kv: Deno.Kv,
  nowMs: number,
  gateClosureLocalTime: string,
): Promise<Deno.KvEntry<DayState>[]> {
  const from = addDays(localDayOf(nowMs), 1);
  const out: Deno.KvEntry<DayState>[] = [];
  for await (
    const e of kv.list<DayState>(KEYS.daysFrom(from))
  ) {
    const day = e.key[1] as string;
    if (Object.keys(e.value.steps).length === 0) continue;
    if (deliveryDay(day, gateClosureLocalTime).gateClosure.epochMilliseconds > nowMs) out.push(e);
  }
  return out;
}

/** Open days marked stale in the same atomic as the change (KV allows 100 checks per atomic). */
const DAYS_IN_ATOMIC = 90;

/**
 * Commits a master-data change: `build` adds the location writes/deletes and the checks of what
 * it read (a few at most: KV allows 100 checks per atomic); the master version is bumped; with
 * `change`, the open days (see {@link MasterDataChange}) are marked stale in the same atomic —
 * the nearest {@link DAYS_IN_ATOMIC} of them; any further ones (far-future days run by hand)
 * right after, one read-check-commit each.
 * @returns false when a check failed (read again and retry)
 */
async function commitMasterData(
  kv: Deno.Kv,
  build: (op: Deno.AtomicOperation) => void,
  changed: number,
  atMs: number,
  change: MasterDataChange | undefined,
): Promise<boolean> {
  const op = kv.atomic();
  build(op);
  op.sum(MASTER_VERSION, 1n);
  const days = change ? await openDays(kv, atMs, change.gateClosureLocalTime) : [];
  const lastInput = change && {
    at: new Date(atMs).toISOString(),
    by: change.by,
    market_locations: changed,
    source: "master_data" as const,
  };
  const bump = (s: DayState): DayState => inputChanged(s, lastInput!);
  for (const e of days.slice(0, DAYS_IN_ATOMIC)) writeDay(op, e, bump(e.value));
  if (!(await op.commit()).ok) return false;
  for (const e of days.slice(DAYS_IN_ATOMIC)) {
    await updateDay(kv, e.key[1] as string, (s) => Promise.resolve({ state: bump(s), result: 0 }));
  }
  return true;
}

/**
 * Creates or replaces a market location; returns it and whether it was new. Re-sending the same
 * fields changes nothing (the stored `updated_at` stays, no day turns stale).
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
    ...input,
    updated_at: new Date(atMs).toISOString(),
  };
  return await retryKv(`put market location ${id}`, async () => {
    const prev = await kv.get<MarketLocation>(key(id));
    if (sameContent(prev.value, location)) return { location: prev.value!, created: false };
    const ok = await commitMasterData(
      kv,
      (op) => op.check(prev).set(key(id), location),
      1,
      atMs,
      change,
    );
    return ok ? { location, created: prev.value === null } : undefined;
  });
}

/** Largest batch of `PUT /v1/market-locations` (one KV atomic). */
export const MAX_LOCATION_BATCH = 500;

/** Body of the batch upsert: `{market_locations: [{malo_id, ...fields}]}`. */
export const MarketLocationBatch = z.strictObject({
  market_locations: z.array(
    z.object({ malo_id: MaloId }).passthrough(),
  ).min(1).max(MAX_LOCATION_BATCH, `at most ${MAX_LOCATION_BATCH} market locations per request`),
});

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
  return await retryKv("put market locations", async () => {
    const prev: Deno.KvEntryMaybe<MarketLocation>[] = [];
    for (let i = 0; i < items.length; i += 10) {
      prev.push(
        ...await kv.getMany<MarketLocation[]>(items.slice(i, i + 10).map((it) => key(it.malo_id))),
      );
    }
    let created = 0, replaced = 0, unchanged = 0;
    const writes: [Deno.KvEntryMaybe<MarketLocation>, MarketLocation][] = [];
    items.forEach(({ malo_id, ...input }, i) => {
      const next: MarketLocation = { malo_id, ...input, updated_at: at };
      if (sameContent(prev[i].value, next)) {
        unchanged++;
        return;
      }
      if (prev[i].value === null) created++;
      else replaced++;
      writes.push([prev[i], next]);
    });
    if (!writes.length) return { created, replaced, unchanged };
    const ok = await commitMasterData(
      kv,
      (op) => {
        // No check per location (KV allows 100 checks per atomic): the last writer wins.
        for (const [entry, loc] of writes) op.set(entry.key, loc);
      },
      writes.length,
      atMs,
      change,
    );
    return ok ? { created, replaced, unchanged } : undefined;
  });
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
  return await retryKv(`delete market location ${id}`, async () => {
    const prev = await kv.get(key(id));
    if (prev.value === null) return false;
    const ok = await commitMasterData(
      kv,
      (op) => op.check(prev).delete(key(id)),
      1,
      atMs,
      change,
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
 * The registered MaLo-IDs among `ids` (a batch of up to 500): 10-key reads, all concurrently.
 */
export async function registeredMarketLocations(
  kv: Deno.Kv,
  ids: string[],
): Promise<Set<string>> {
  const out = new Set<string>();
  const entries = await getManyChunked<MarketLocation>(kv, ids.map((id) => key(id)));
  for (const e of entries) if (e.value !== null) out.add(e.value.malo_id);
  return out;
}
