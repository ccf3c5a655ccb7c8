/**
 * A mixed portfolio of market locations for the profile-class tests (docs/pipeline.md,
 * "Forecasts" and "Aggregation"), and the open position and class table of such a portfolio
 * computed independently of lib/pipeline: per location, from `generateProfileForecast` and the
 * customer's values, summed in float64. Pure, apart from the KV writers at the end.
 * @module
 */
import assert from "node:assert/strict";
import { quarterHourCount } from "../../lib/domain/delivery_day.ts";
import { generateProfileForecast, type ProfileCode } from "../../lib/domain/slp/profile.ts";
import type { MarketLocation } from "../../lib/pipeline/market_locations.ts";
import { KEYS } from "../../lib/store/keys.ts";
import { readClassTable } from "../../lib/pipeline/profile_classes.ts";
import { AREAS, maloId } from "./portfolio.ts";

/** A market location as registered (`PUT /v1/market-locations`, batch item). */
export type LocationInput = Omit<MarketLocation, "updated_at">;

/** Profiles of the portfolio, in rotation. */
export const MIX: ProfileCode[] = ["H0", "G0", "H25", "G25", "L0", "L25", "P25", "S25", "G1", "G4"];
/** Active control areas of the tests (50Hertz stays inactive). */
export const ACTIVE: string[] = [AREAS.amprion, AREAS.tennet, AREAS.transnet];
/** The inactive control area. */
export const INACTIVE: string = AREAS.hertz;
/** Two days before the day, 08:00 UTC: before gate closure. */
export const nowFor = (day: string) => Date.parse(`${day}T08:00:00Z`) - 2 * 86_400_000;

/**
 * The `i`-th location (MaLo-ID `maloId(i + 1)`): blocks of ten per control area (all four, one
 * inactive), so every area has every profile; generation in one block of 40 out of 200; odd
 * annual energies with decimals; every 7th (`i % 7 === 3`) without profile.
 */
export function location(i: number): LocationInput {
  const areas = Object.values(AREAS);
  const withProfile = i % 7 !== 3;
  return {
    malo_id: maloId(i + 1),
    control_area: areas[Math.floor(i / 10) % areas.length],
    direction: Math.floor(i / 40) % 5 === 2 ? "generation" : "consumption",
    ...(withProfile
      ? {
        standard_load_profile: MIX[i % MIX.length],
        annual_kwh: 1_000 + ((i * 7_919) % 97_000) + ((i * 37) % 1_000) / 997,
      }
      : {}),
  };
}

/** Locations `from` … `from + n - 1`. */
export function portfolio(n: number, from = 0): LocationInput[] {
  return Array.from({ length: n }, (_, k) => location(from + k));
}

/** Customer values of location `i` for a day of `n` quarter-hours (kW, 3 decimals, 0.5–129). */
export const customerValues = (i: number, n: number): number[] =>
  Array.from(
    { length: n },
    (_, k) => Math.round((0.5 + ((i * 31 + k * 17) % 900) / 7) * 1000) / 1000,
  );

/** What the independent computation counts (the meaning of the aggregate's `counts`). */
export interface Counts {
  market_locations: number;
  inactive_area: number;
  missing_forecast: number;
  unknown_location: number;
}

/**
 * The open position of `day` location by location: a customer forecast with the day's number of
 * values replaces the location's profile forecast (unrounded `generateProfileForecast`, region
 * DE unless given), one with another number counts as missing; without profile and customer
 * forecast, or with profiles left out (`withProfiles: false`, the forecast step never ran),
 * missing. Consumption positive, generation negative.
 * @returns kW per quarter-hour per active area, and the counts
 */
export function exactOpenPosition(
  locs: Iterable<LocationInput>,
  day: string,
  customers: Map<string, number[]>,
  opts: { withProfiles: boolean; region?: string; activeAreas?: string[] },
): { kw: Record<string, Float64Array>; counts: Counts } {
  const n = quarterHourCount(day);
  const active = opts.activeAreas ?? ACTIVE;
  const kw: Record<string, Float64Array> = {};
  for (const a of active) kw[a] = new Float64Array(n);
  const counts: Counts = {
    market_locations: 0,
    inactive_area: 0,
    missing_forecast: 0,
    unknown_location: 0,
  };
  const known = new Set<string>();
  for (const loc of locs) {
    known.add(loc.malo_id);
    const acc = kw[loc.control_area];
    if (!acc) {
      counts.inactive_area++;
      continue;
    }
    const customer = customers.get(loc.malo_id);
    const values = customer
      ? (customer.length === n ? customer : undefined)
      : loc.standard_load_profile && opts.withProfiles
      ? generateProfileForecast(loc.standard_load_profile, loc.annual_kwh!, day, opts.region)
      : undefined;
    if (!values) {
      counts.missing_forecast++;
      continue;
    }
    counts.market_locations++;
    const sign = loc.direction === "generation" ? -1 : 1;
    for (let i = 0; i < n; i++) acc[i] += sign * values[i];
  }
  for (const malo of customers.keys()) if (!known.has(malo)) counts.unknown_location++;
  return { kw, counts };
}

/**
 * Asserts that `mw` (an aggregate's areas) equals `kw` (an exact open position) in every
 * quarter-hour of every area within `tolerance` MW.
 * @returns the largest deviation found, MW
 */
export function assertSameMw(
  mw: Record<string, number[]>,
  kw: Record<string, Float64Array>,
  tolerance = 0.001,
  what = "",
): number {
  assert.deepEqual(Object.keys(mw).sort(), Object.keys(kw).sort(), `${what}: areas`);
  let worst = 0;
  for (const [area, exact] of Object.entries(kw)) {
    assert.equal(mw[area].length, exact.length, `${what}: quarter-hours of ${area}`);
    exact.forEach((v, i) => {
      const d = Math.abs(mw[area][i] - v / 1000);
      worst = Math.max(worst, d);
      assert.ok(
        d <= tolerance,
        `${what}: ${area} quarter-hour ${i}: ${mw[area][i]} MW, exact ${v / 1000}`,
      );
    });
  }
  return worst;
}

/** One class of the table as the tests expect it. */
export interface ExpectedClass {
  control_area: string;
  direction: "consumption" | "generation";
  profile: ProfileCode | null;
  count: number;
  wh: number;
}

/**
 * The class table of `locs` (`{classes}`), computed here: per `<area>|<direction>|<profile or ->`
 * the count and Σ round(annual kWh × 1000) (0 without profile).
 */
export function expectedTable(
  locs: Iterable<LocationInput>,
): { classes: Record<string, ExpectedClass> } {
  const classes: Record<string, ExpectedClass> = {};
  for (const l of locs) {
    const k = `${l.control_area}|${l.direction}|${l.standard_load_profile ?? "-"}`;
    const c = classes[k] ??= {
      control_area: l.control_area,
      direction: l.direction,
      profile: l.standard_load_profile ?? null,
      count: 0,
      wh: 0,
    };
    c.count++;
    if (l.standard_load_profile) c.wh += Math.round(l.annual_kwh! * 1000);
  }
  return { classes };
}

/** The stored class table (`null` when there is none). */
export async function storedTable(kv: Deno.Kv): Promise<unknown> {
  const stored = await readClassTable(kv);
  return stored.version === null ? null : stored.table;
}

/**
 * Writes market locations the way an earlier version did (no class table): straight into KV,
 * 500 per atomic, and the master-data version bumped once.
 */
export async function writeLocationsDirectly(kv: Deno.Kv, locs: LocationInput[]): Promise<void> {
  for (let i = 0; i < locs.length; i += 500) {
    const op = kv.atomic();
    for (const l of locs.slice(i, i + 500)) {
      op.set(KEYS.marketLocation(l.malo_id), { ...l, updated_at: "2026-01-01T00:00:00.000Z" });
    }
    assert.ok((await op.commit()).ok);
  }
  await kv.atomic().sum(KEYS.masterDataVersion, 1n).commit();
}

/** How many records are stored under `["forecasts", day]`. */
export async function forecastRecords(kv: Deno.Kv, day: string): Promise<number> {
  let n = 0;
  for await (const _ of kv.list(KEYS.forecastsOfDay(day))) n++;
  return n;
}
