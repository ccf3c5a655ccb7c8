/**
 * The exactness check of `bench/million.ts`: the open position a day of the bench portfolio must
 * have, computed here from first principles — per market location `annual_kwh ×
 * profileShape(profile, day, region)` (kW per quarter-hour, full double precision, no rounding),
 * or the location's customer forecast as sent where there is one — summed per control area and
 * converted to MW, then compared with the aggregate the app answers on
 * `GET /v1/delivery-days/{day}/open-position`.
 * @module
 */
import { quarterHourCount } from "../lib/domain/delivery_day.ts";
import { type ProfileCode, profileShape } from "../lib/domain/slp/profile.ts";
import { AREAS, benchLocation, benchMalo } from "./portfolio.ts";

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
 * The exact open position of locations `0..n-1` of the bench portfolio for `day`: `withCustomer`
 * lets every customer forecast replace its location's profile value (what the app must do),
 * `profileOnly` is the same sum without the replacement (to show the check tells them apart).
 */
export function exactPosition(
  n: number,
  customers: Map<string, number[]>,
  day: string,
  region: string,
): { withCustomer: Position; profileOnly: Position; replaced: number } {
  const qh = quarterHourCount(day);
  const kw = () => Object.fromEntries(AREAS.map((a) => [a, new Float64Array(qh)]));
  const withCustomer: Position = kw();
  const profileOnly: Position = kw();
  const shapes = new Map<ProfileCode, Float64Array>();
  let replaced = 0;
  for (let i = 0; i < n; i++) {
    const loc = benchLocation(i, "");
    const profile = loc.standard_load_profile!;
    let shape = shapes.get(profile);
    if (!shape) shapes.set(profile, shape = profileShape(profile, day, region));
    const kwh = loc.annual_kwh!;
    const sign = loc.direction === "generation" ? -1 : 1;
    const acc = withCustomer[loc.control_area];
    const prof = profileOnly[loc.control_area];
    const own = customers.size ? customers.get(benchMalo(i)) : undefined;
    if (own && own.length !== qh) throw new Error(`customer forecast of ${loc.malo_id}: length`);
    if (own) replaced++;
    for (let q = 0; q < qh; q++) {
      const v = sign * shape[q] * kwh;
      prof[q] += v;
      acc[q] += own ? sign * own[q] : v;
    }
  }
  for (const pos of [withCustomer, profileOnly]) {
    for (const a of AREAS) pos[a] = pos[a].map((v) => v / 1000); // kW → MW
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
