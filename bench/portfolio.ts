/**
 * The benchmark portfolio (docs/benchmarks.md, "The rig"): `n` market locations with ten BDEW
 * standard load profiles over the four German control areas (deterministic), as KV records or
 * request bodies; customer forecasts for them; and the exact open position such a portfolio must
 * have, computed from first principles (annual kWh × `profileShape`, customer forecasts replacing
 * their location's value, summed per control area, kW → MW).
 * @module
 */
import { maloCheckDigit } from "../lib/domain/malo.ts";
import type { MarketLocation } from "../lib/pipeline/market_locations.ts";
import { type ProfileCode, profileShape } from "../lib/domain/slp/profile.ts";
import { quarterHourCount } from "../lib/domain/delivery_day.ts";

/** EICs of the four German control areas. */
export const AREAS = [
  "10YDE-RWENET---I",
  "10YDE-EON------1",
  "10YDE-ENBW-----N",
  "10YDE-VE-------2",
];

/** Profile and annual kWh of the mix, used in turn. */
const MIX: [ProfileCode, number][] = [
  ["H0", 3_500],
  ["H25", 3_200],
  ["G0", 40_000],
  ["G25", 60_000],
  ["L0", 80_000],
  ["L25", 90_000],
  ["P25", 4_500],
  ["S25", 5_000],
  ["G1", 25_000],
  ["G4", 30_000],
];

/** The `i`-th MaLo-ID of the benchmark series (first digit 6). */
export function benchMalo(i: number): string {
  const first10 = `6${String(i).padStart(9, "0")}`;
  return `${first10}${maloCheckDigit(first10)}`;
}

/** The `i`-th market location (`updated_at` = `at`). */
export function benchLocation(i: number, at: string): MarketLocation {
  const [profile, kwh] = MIX[i % MIX.length];
  return {
    malo_id: benchMalo(i),
    control_area: AREAS[i % AREAS.length],
    direction: "consumption",
    standard_load_profile: profile,
    annual_kwh: Math.round(kwh * (0.5 + ((i * 7919) % 1000) / 1000)),
    name: `${profile} customer ${i}`,
    updated_at: at,
  };
}

/** Writes locations 0..n-1 under `["market_locations", id]`, 500 per atomic. */
export async function writeLocations(kv: Deno.Kv, n: number): Promise<void> {
  const at = new Date().toISOString();
  for (let i = 0; i < n; i += 500) {
    const op = kv.atomic();
    for (let j = i; j < Math.min(n, i + 500); j++) {
      const loc = benchLocation(j, at);
      op.set(["market_locations", loc.malo_id], loc);
    }
    if (!(await op.commit()).ok) throw new Error("writing market locations failed");
  }
}

/** kW per quarter-hour of location `i`'s customer forecast in `round`. */
const values = (i: number, qh: number, round = 0) => {
  const base = 1 + (i % 97) / 10 + round / 10;
  return Array.from({ length: qh }, (_, k) => Math.round((base + (k % 7) / 3) * 1000) / 1000);
};

/** Batches of `size` items of `ids`, each made by `item`, as JSON bodies under `key`. */
const batches = <T>(ids: number[], size: number, key: string, item: (i: number) => T) => {
  const out: string[] = [];
  for (let i = 0; i < ids.length; i += size) {
    out.push(JSON.stringify({ [key]: ids.slice(i, i + size).map(item) }));
  }
  return out;
};
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/**
 * `POST /v1/forecasts` bodies: customer forecasts for locations `ids` (or 0..ids-1), `size` per
 * batch, different in every quarter-hour for every `round`.
 */
export function forecastBatches(
  ids: number | number[],
  day: string,
  size = 500,
  round = 0,
): string[] {
  const qh = quarterHourCount(day);
  return batches(typeof ids === "number" ? range(ids) : ids, size, "forecasts", (i) => ({
    market_location_id: benchMalo(i),
    delivery_day: day,
    unit: "kW",
    values: values(i, qh, round),
  }));
}

/** `PUT /v1/market-locations` bodies: locations 0..n-1 as input (no `updated_at`), `size` each. */
export function locationBatches(n: number, size = 500): string[] {
  return batches(range(n), size, "market_locations", (i) => {
    const { updated_at: _, ...input } = benchLocation(i, "");
    return input;
  });
}

/**
 * The locations with a customer forecast: `customers` of the `n`, every `step`-th (`step` the
 * odd number at or below `n / customers`, so they fall in all four areas and not in one KV range).
 */
export function customerIds(n: number, customers: number): number[] {
  const even = Math.max(1, Math.floor(n / customers));
  const step = even % 2 === 0 ? even - 1 : even;
  return Array.from({ length: Math.min(n, customers) }, (_, i) => i * step);
}

/** Customer forecasts of `ids` for `day` as `ingestForecasts` takes them (kW). */
export function customerForecasts(ids: number[], day: string, round: number) {
  const qh = quarterHourCount(day);
  return ids.map((i) => ({
    malo_id: benchMalo(i),
    delivery_day: day,
    values: values(i, qh, round),
  }));
}

/** Control area EIC → MW per quarter-hour. */
export type Position = Record<string, Float64Array>;

/** Customer forecasts of `bodies` (`POST /v1/forecasts` batches) by MaLo-ID: kW per quarter-hour. */
export function customerValues(bodies: string[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const b of bodies) {
    const { forecasts } = JSON.parse(b) as {
      forecasts: { market_location_id: string; values: number[] }[];
    };
    for (const f of forecasts) out.set(f.market_location_id, f.values);
  }
  return out;
}

/**
 * The exact open position of locations `0..n-1` for `day` (MW): `withCustomer` lets every
 * customer forecast replace its location's profile value (what the app must do), `profileOnly`
 * does not (to show the check tells them apart).
 */
export function exactPosition(
  n: number,
  customers: Map<string, number[]>,
  day: string,
  region: string,
) {
  const qh = quarterHourCount(day);
  const kw = (): Position => Object.fromEntries(AREAS.map((a) => [a, new Float64Array(qh)]));
  const withCustomer = kw(), profileOnly = kw();
  const shapes = new Map<ProfileCode, Float64Array>();
  let replaced = 0;
  for (let i = 0; i < n; i++) {
    const loc = benchLocation(i, "");
    const profile = loc.standard_load_profile!;
    let shape = shapes.get(profile);
    if (!shape) shapes.set(profile, shape = profileShape(profile, day, region));
    const sign = loc.direction === "generation" ? -1 : 1;
    const own = customers.get(benchMalo(i));
    if (own && own.length !== qh) throw new Error(`customer forecast of ${loc.malo_id}: length`);
    if (own) replaced++;
    for (let q = 0; q < qh; q++) {
      const v = sign * shape[q] * loc.annual_kwh!;
      profileOnly[loc.control_area][q] += v;
      withCustomer[loc.control_area][q] += own ? sign * own[q] : v;
    }
  }
  for (const pos of [withCustomer, profileOnly]) {
    for (const a of AREAS) pos[a] = pos[a].map((v) => v / 1000);
  }
  return { withCustomer, profileOnly, replaced };
}

/** Largest |a − b| over every area and quarter-hour (Infinity when an area or length differs). */
export function maxAbsDiff(app: Record<string, number[]>, exact: Position): number {
  let max = 0;
  for (const [area, want] of Object.entries(exact)) {
    const got = app[area];
    if (!got || got.length !== want.length) return Infinity;
    for (let q = 0; q < want.length; q++) max = Math.max(max, Math.abs(got[q] - want[q]));
  }
  return max;
}

/** Largest |value| of a position, MW. */
export function largest(pos: Position): number {
  let max = 0;
  for (const v of Object.values(pos)) for (const x of v) max = Math.max(max, Math.abs(x));
  return max;
}
