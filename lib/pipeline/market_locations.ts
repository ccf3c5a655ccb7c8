/**
 * Market locations: the customer's master data (DESIGN §8), stored under
 * `["market_locations", <malo_id>]`.
 * @module
 */
import { z } from "zod";
import { eicProblem } from "../domain/eic.ts";
import { maloProblem } from "../domain/malo.ts";
import { PROFILE_CODES } from "../domain/slp/profile.ts";

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

const key = (id: string): Deno.KvKey => ["market_locations", id];
const MASTER_VERSION: Deno.KvKey = ["meta", "market_locations_version"];

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

/** Creates or replaces a market location; returns it and whether it was new. */
export async function putMarketLocation(
  kv: Deno.Kv,
  id: string,
  input: z.infer<typeof MarketLocationInput>,
  atMs: number,
): Promise<{ location: MarketLocation; created: boolean }> {
  const location: MarketLocation = {
    malo_id: id,
    ...input,
    updated_at: new Date(atMs).toISOString(),
  };
  const prev = await kv.get(key(id));
  await kv.atomic().set(key(id), location).sum(MASTER_VERSION, 1n).commit();
  return { location, created: prev.value === null };
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
 * Creates or replaces several market locations in one atomic (all or nothing).
 * @returns how many were new and how many replaced
 */
export async function putMarketLocations(
  kv: Deno.Kv,
  items: (z.infer<typeof MarketLocationInput> & { malo_id: string })[],
  atMs: number,
): Promise<{ created: number; replaced: number }> {
  let existing = 0;
  for (let i = 0; i < items.length; i += 10) {
    const entries = await kv.getMany(items.slice(i, i + 10).map((it) => key(it.malo_id)));
    existing += entries.filter((e) => e.value !== null).length;
  }
  const op = kv.atomic();
  const at = new Date(atMs).toISOString();
  for (const { malo_id, ...input } of items) {
    op.set(key(malo_id), { malo_id, ...input, updated_at: at } satisfies MarketLocation);
  }
  await op.sum(MASTER_VERSION, 1n).commit();
  return { created: items.length - existing, replaced: existing };
}

/** Deletes a market location; true when it existed. */
export async function deleteMarketLocation(kv: Deno.Kv, id: string): Promise<boolean> {
  const prev = await kv.get(key(id));
  if (prev.value === null) return false;
  await kv.atomic().delete(key(id)).sum(MASTER_VERSION, 1n).commit();
  return true;
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
  const selector = opts.after
    ? { start: ["market_locations", opts.after + "\0"], end: ["market_locations", "\uffff"] }
    : { prefix: ["market_locations"] };
  for await (
    const e of kv.list<MarketLocation>(selector, { limit: opts.limit, batchSize: 1000 })
  ) out.push(e.value);
  return out;
}
