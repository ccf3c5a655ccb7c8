/**
 * Reads what the settlement of one delivery day is computed from (docs/settlement.md, "Inputs"),
 * per control area as {@link AreaInputs}:
 * - schedule: the last version the TSO did not reject (`standingVersion`, lib/fahrplan/history.ts);
 *   day-ahead: the last version sent in the day-ahead phase;
 * - the market-location actual: metered locations (their kWh × 4 = average kW), plus the profile
 *   values of the SLP locations without metering (profile-settled: BDEW profile × annual energy,
 *   the same values the forecast step generates, lib/pipeline/open_position.ts); unknown (`null`)
 *   in a quarter-hour where a metered location has no value, and in every quarter-hour while a
 *   location without a profile has no metering;
 * - the balancing-group sums, where every balancing area of the control area (`balancing_areas`)
 *   has a complete one for the day;
 * - the reBAP prices of the day.
 * The profile locations are taken from the class table (counts and annual energy per class), so
 * nothing lists every market location: the work grows with the metered locations.
 * @module
 */
import type { EffectiveConfig } from "../config/fields.ts";
import { balancingAreasOf } from "../config/balancing_areas.ts";
import { deliveryDay } from "../domain/delivery_day.ts";
import type { ProfileCode } from "../domain/slp/profile.ts";
import { shapeModules } from "../pipeline/shape_modules.ts";
import {
  type ScheduleVersionRecord,
  standingVersion,
  versionHistory,
} from "../fahrplan/history.ts";
import { tsoName } from "../fahrplan/tso_names.ts";
import { forecastsOfDay } from "../pipeline/forecasts.ts";
import { type MarketLocation, marketLocationsByIds } from "../pipeline/market_locations.ts";
import { profileClasses } from "../pipeline/master_data.ts";
import { classesOf } from "../pipeline/profile_classes.ts";
import { actualsOfDay, balancingGroupSumsOfDay, type StoredActuals } from "./actuals_store.ts";
import type { AreaInputs } from "./compute.ts";
import { pricesOfDay } from "./prices_store.ts";

/** The inputs of every area of the day, and whether the day has any settlement input at all. */
export interface DayInputs {
  areas: AreaInputs[];
  /** True when the day has actuals, balancing-group sums or a sent schedule. */
  any: boolean;
}

const sign = (d: "consumption" | "generation") => d === "generation" ? -1 : 1;

/** Reads the inputs of `day` for the active control areas of `cfg`. */
export async function readSettlementInputs(
  kv: Deno.Kv,
  cfg: EffectiveConfig,
  day: string,
): Promise<DayInputs> {
  const dd = deliveryDay(day);
  const n = dd.quarterHours.length;
  const quarterHours = dd.quarterHours.map((q) => q.toString());
  const region = cfg.holiday_region ?? "DE";
  const [metered, sums, prices, table] = await Promise.all([
    actualsOfDay(kv, day),
    balancingGroupSumsOfDay(kv, day),
    pricesOfDay(kv, day),
    profileClasses(kv),
  ]);
  const ids = [...metered.keys()];
  const locations = await marketLocationsByIds(kv, ids);
  const customer = ids.length ? await customerForecasts(kv, day, new Set(ids)) : new Map();
  const classes = classesOf(table.table);
  // The profile shapes need the holiday calendar, loaded at the first use (shape_modules.ts).
  const { sharedProfileShape } = (await shapeModules()).profile;
  const addShape = (acc: Float64Array, p: ProfileCode, k: number) => {
    const shape = sharedProfileShape(p, day, region);
    for (let i = 0; i < acc.length; i++) acc[i] += shape[i] * k;
  };
  const areas: AreaInputs[] = [];
  let any = metered.size > 0 || sums.length > 0;
  for (const area of cfg.active_control_areas) {
    const history = await versionHistory(kv, day, area);
    if (history.length) any = true;
    const kw = new Float64Array(n);
    const unknown = new Uint8Array(n);
    let profileCount = 0, withoutProfile = 0;
    for (const c of classes) {
      if (c.control_area !== area) continue;
      if (!c.profile) {
        withoutProfile += c.count;
        continue;
      }
      profileCount += c.count;
      addShape(kw, c.profile, sign(c.direction) * c.wh / 1000);
    }
    let complete = 0, incomplete = 0, meteredProfile = 0, meteredPlain = 0;
    const sources = new Map<
      string,
      { locations: number; f: Float64Array; a: Float64Array; abs: number }
    >();
    ids.forEach((id, k) => {
      const loc = locations[k];
      if (!loc || loc.control_area !== area) return;
      const rec = metered.get(id)!;
      const s = sign(loc.direction);
      if (loc.standard_load_profile) {
        meteredProfile++;
        addShape(kw, loc.standard_load_profile, -s * (loc.annual_kwh ?? 0));
      } else meteredPlain++;
      let full = true;
      for (let i = 0; i < n; i++) {
        const v = rec.kwh[i];
        if (v === null || v === undefined) {
          unknown[i] = 1;
          full = false;
        } else kw[i] += s * v * 4;
      }
      if (full) complete++;
      else incomplete++;
      addSource(
        sources,
        loc,
        rec,
        customer.get(id),
        loc.standard_load_profile
          ? sharedProfileShape(loc.standard_load_profile, day, region)
          : null,
      );
    });
    const missingPlain = Math.max(0, withoutProfile - meteredPlain);
    const mlMw = Array.from(
      { length: n },
      (_, i) => unknown[i] || missingPlain > 0 ? null : kw[i] / 1000,
    );
    areas.push({
      control_area: area,
      name: tsoName(area) ?? area,
      quarter_hours: quarterHours,
      ...schedules(history),
      market_location_mw: mlMw,
      balancing_group_mw: balancingGroupMw(cfg.balancing_areas ?? [], area, sums, n),
      price_short: prices?.short ?? null,
      price_long: prices?.long ?? null,
      locations: {
        metered: complete,
        profile_settled: Math.max(0, profileCount - meteredProfile),
        missing: missingPlain + incomplete,
      },
      by_source: [...sources].map(([source, v]) => {
        let mad = 0, abs = v.abs;
        for (let i = 0; i < n; i++) mad += Math.abs(v.f[i] - v.a[i]);
        abs = abs * 0.25 / 1000;
        return {
          source,
          locations: v.locations,
          mad_mw: Math.round((mad / n) * 1e3) / 1e6,
          abs_deviation_mwh: Math.round(abs * 1e6) / 1e6,
        };
      }).sort((a, b) => (b.abs_deviation_mwh ?? 0) - (a.abs_deviation_mwh ?? 0)),
    });
  }
  return { areas, any };
}

/** Schedule and day-ahead of an area's version history. */
function schedules(history: ScheduleVersionRecord[]): Pick<AreaInputs, "schedule" | "day_ahead"> {
  const standing = standingVersion(history);
  const da = history.filter((h) => h.phase === "day_ahead").at(-1);
  return {
    schedule: standing ? { version: standing.version, mw: standing.quantities } : null,
    day_ahead: da ? { version: da.version, mw: da.quantities } : null,
  };
}

/** Σ of the balancing-group sums of the area's balancing areas, MW; `null` unless all complete. */
function balancingGroupMw(
  entries: readonly string[],
  area: string,
  sums: readonly StoredActuals[],
  n: number,
): number[] | null {
  const bas = balancingAreasOf(entries, area);
  if (bas.length === 0) return null;
  const out = new Array<number>(n).fill(0);
  for (const ba of bas) {
    const mine = sums.filter((s) =>
      s.owner.kind === "balancing_group_sum" && s.owner.balancing_area === ba &&
      s.kwh.every((v) => v !== null)
    );
    if (mine.length === 0) return null;
    for (const s of mine) for (let i = 0; i < n; i++) out[i] += (s.kwh[i] as number) * 4 / 1000;
  }
  return out;
}

/** Adds a metered location's forecast (customer, else profile) and actual to its source, kW. */
function addSource(
  sources: Map<string, { locations: number; f: Float64Array; a: Float64Array; abs: number }>,
  loc: MarketLocation,
  rec: StoredActuals,
  customer: ArrayLike<number> | undefined,
  profileShape: Readonly<Float64Array> | null,
): void {
  const source = customer ? "customer" : loc.standard_load_profile;
  if (!source) return;
  const n = rec.kwh.length;
  const s = sources.get(source) ??
    { locations: 0, f: new Float64Array(n), a: new Float64Array(n), abs: 0 };
  s.locations++;
  const shape = customer ? null : profileShape;
  if (!customer && !shape) return;
  for (let i = 0; i < n; i++) {
    const v = rec.kwh[i];
    if (v === null || v === undefined) continue;
    const f = customer ? customer[i] : shape![i] * (loc.annual_kwh ?? 0);
    s.f[i] += f;
    s.a[i] += v * 4;
    s.abs += Math.abs(f - v * 4);
  }
  sources.set(source, s);
}

/** Customer forecast values (kW) of the metered locations. */
async function customerForecasts(
  kv: Deno.Kv,
  day: string,
  ids: Set<string>,
): Promise<Map<string, ArrayLike<number>>> {
  const out = new Map<string, ArrayLike<number>>();
  for (const [id, e] of await forecastsOfDay(kv, day)) {
    const f = e.value;
    if (ids.has(id) && f.source === "customer" && "values" in f) out.set(id, f.values);
  }
  return out;
}
