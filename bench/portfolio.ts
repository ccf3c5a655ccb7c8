/**
 * The benchmark portfolio (docs/benchmarks.md, "The rig"): market locations with ten BDEW profiles
 * over the four German control areas, as KV records or request bodies, and customer forecasts.
 * @module
 */
import { maloCheckDigit } from "../lib/domain/malo.ts";
import type { MarketLocation } from "../lib/pipeline/market_locations.ts";
import type { ProfileCode } from "../lib/domain/slp/profile.ts";
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

/** Customer forecasts of `bodies` (`POST /v1/forecasts` batches) by MaLo-ID: kW per quarter-hour. */
export function customerValues(bodies: string[]): Map<string, number[]> {
  type Body = { forecasts: { market_location_id: string; values: number[] }[] };
  return new Map(
    bodies.flatMap((b) =>
      (JSON.parse(b) as Body).forecasts.map((f) => [f.market_location_id, f.values])
    ),
  );
}
