/**
 * Benchmark portfolio: `n` market locations with mixed standard load profiles over the four German
 * control areas (deterministic), written straight into KV with atomics (nothing else is bumped),
 * and customer-forecast batches for them as request bodies.
 * @module
 */
import { maloCheckDigit } from "../lib/domain/malo.ts";
import type { MarketLocation } from "../lib/pipeline/market_locations.ts";
import type { ProfileCode } from "../lib/domain/slp/profile.ts";

/** EICs of the four German control areas. */
export const AREAS = [
  "10YDE-RWENET---I",
  "10YDE-EON------1",
  "10YDE-ENBW-----N",
  "10YDE-VE-------2",
];

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

/** The `i`-th market location. */
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

/** `POST /v1/forecasts` bodies: customer forecasts for locations 0..n-1, `size` per batch. */
export function forecastBatches(n: number, day: string, qh: number, size = 500): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i += size) {
    const forecasts = [];
    for (let j = i; j < Math.min(n, i + size); j++) {
      const base = 1 + (j % 97) / 10;
      forecasts.push({
        market_location_id: benchMalo(j),
        delivery_day: day,
        unit: "kW",
        values: Array.from(
          { length: qh },
          (_, k) => Math.round((base + (k % 7) / 3) * 1000) / 1000,
        ),
      });
    }
    out.push(JSON.stringify({ forecasts }));
  }
  return out;
}

/**
 * Sends every body to `url` (`POST` unless `method` says otherwise) with `concurrency` clients;
 * throws on a non-200; returns seconds.
 */
export async function postAll(
  url: string,
  bodies: string[],
  headers: Record<string, string>,
  concurrency: number,
  method = "POST",
): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < bodies.length) {
      const body = bodies[next++];
      const res = await fetch(url, {
        method,
        headers: { "content-type": "application/json", ...headers },
        body,
      });
      const text = await res.text();
      if (res.status !== 200) {
        throw new Error(`${method} ${url} → ${res.status}: ${text.slice(0, 300)}`);
      }
    }
  }));
  return (performance.now() - t0) / 1000;
}

/** `PUT /v1/market-locations` bodies: locations 0..n-1 as input (no `updated_at`), `size` each. */
export function locationBatches(n: number, size = 500): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i += size) {
    const market_locations = [];
    for (let j = i; j < Math.min(n, i + size); j++) {
      const { updated_at: _, ...input } = benchLocation(j, "");
      market_locations.push(input);
    }
    out.push(JSON.stringify({ market_locations }));
  }
  return out;
}
