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
 * - the balancing-group sums, where every balancing area (`balancing_areas`) and MaBiS metering
 *   point (`mabis_metering_points`) of the control area has a complete one for the day;
 * - the imbalance prices of the day with their source (reBAP or AEP estimate), ID AEP and the
 *   volume-weighted prices of the BRP's own intraday trades;
 * - which values are substitute or provisional values (`./quality_tally.ts`).
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
import { countedForecast, forecastSources } from "./forecast_sources.ts";
import { type LocationFacts, locationFacts } from "../pipeline/location_facts.ts";
import { profileClasses } from "../pipeline/master_data.ts";
import { classesOf } from "../pipeline/profile_classes.ts";
import {
  actualsBatches,
  balancingGroupSumsOfDay,
  type PackedActuals,
  type StoredActuals,
} from "./actuals_store.ts";
import type { AreaInputs } from "./compute.ts";
import { idAepOfDay } from "./id_aep_store.ts";
import { tradesOfDay } from "./intraday_trades.ts";
import { pricesOfDay, priceSources } from "./prices_store.ts";
import { QualityTally } from "./quality_tally.ts";
import { meteringPointsOf } from "../config/mabis_points.ts";

/** The inputs of every area of the day, and whether the day has any settlement input at all. */
export interface DayInputs {
  areas: AreaInputs[];
  /** True when the day has actuals, balancing-group sums or a sent schedule. */
  any: boolean;
  /** ID AEP per quarter-hour, EUR/MWh (`null` where not known); `null` when none arrived. */
  id_aep: (number | null)[] | null;
}

const sign = (d: "consumption" | "generation") => d === "generation" ? -1 : 1;

/** What is summed per control area while the metered locations stream past. */
interface AreaSum {
  /** Substitute and provisional values of the metered locations. */
  quality: QualityTally;
  /** kW per quarter-hour: profile classes, less metered profile locations, plus meters. */
  kw: Float64Array;
  /** 1 where a metered location of the area has no value. */
  unknown: Uint8Array;
  complete: number;
  incomplete: number;
  meteredProfile: number;
  meteredPlain: number;
  sources: Map<string, SourceSum>;
}

/** Forecast and actual of one source (profile class, `customer`, `learned`…), kW per quarter-hour. */
interface SourceSum {
  locations: number;
  f: Float64Array;
  a: Float64Array;
  /** Σ |forecast − actual| over locations and quarter-hours, kW. */
  abs: number;
  /**
   * Of a learned or corrected forecast, against the forecast it replaced (`./forecast_sources.ts`):
   * Σ (|replaced − actual| − |forecast − actual|) × 0.25 h in kWh, the same valued at |reBAP| in
   * EUR, and the quarter-hours compared and priced.
   */
  saved: { kwh: number; eur: number; n: number; priced: number };
}

/**
 * Reads the inputs of `day` for the active control areas of `cfg`. The metered locations are read
 * in batches, each batch's master data fetched while the next batch is listed (or taken from the
 * facts kept for the current master-data version, lib/pipeline/location_facts.ts), and summed per
 * area as they arrive: memory holds a batch of actuals, not the day.
 */
export async function readSettlementInputs(
  kv: Deno.Kv,
  cfg: EffectiveConfig,
  day: string,
): Promise<DayInputs> {
  const dd = deliveryDay(day);
  const n = dd.quarterHours.length;
  const quarterHours = dd.quarterHours.map((q) => q.toString());
  const region = cfg.holiday_region ?? "DE";
  const [sums, prices, idAep, table, forecasts, facts] = await Promise.all([
    balancingGroupSumsOfDay(kv, day),
    pricesOfDay(kv, day),
    idAepOfDay(kv, day),
    profileClasses(kv),
    forecastSources(kv, day),
    locationFacts(kv),
  ]);
  /** The price a quarter-hour's imbalance energy is valued at: |reBAP| (its estimate); NaN unknown. */
  const priceOf = (i: number) => {
    const ps = prices?.short?.[i], pl = prices?.long?.[i];
    return ps === null || ps === undefined || pl === null || pl === undefined
      ? NaN
      : (Math.abs(ps) + Math.abs(pl)) / 2;
  };
  // The profile shapes need the holiday calendar, loaded at the first use (shape_modules.ts); each
  // profile's shape is looked up once per pass, not once per location.
  const { sharedProfileShape } = (await shapeModules()).profile;
  const shapes = new Map<ProfileCode, Readonly<Float64Array>>();
  const shapeOf = (p: ProfileCode) => {
    let shape = shapes.get(p);
    if (!shape) shapes.set(p, shape = sharedProfileShape(p, day, region));
    return shape;
  };
  const addShape = (acc: Float64Array, p: ProfileCode, k: number) => {
    const shape = shapeOf(p);
    for (let i = 0; i < acc.length; i++) acc[i] += shape[i] * k;
  };
  const per = new Map<string, AreaSum>();
  for (const area of cfg.active_control_areas) {
    per.set(area, {
      quality: new QualityTally(n),
      kw: new Float64Array(n),
      unknown: new Uint8Array(n),
      complete: 0,
      incomplete: 0,
      meteredProfile: 0,
      meteredPlain: 0,
      sources: new Map(),
    });
  }
  const add = (id: string, rec: PackedActuals, loc: LocationFacts | null) => {
    const a = loc && per.get(loc.control_area);
    if (!a || !loc) return;
    const s = sign(loc.direction);
    const profile = loc.standard_load_profile;
    const shape = profile ? shapeOf(profile) : null;
    if (shape) a.meteredProfile++;
    else a.meteredPlain++;
    // Its source: the forecast that counted for it (`countedForecast`), else its profile, else none
    // (nobody forecast it: its whole actual is deviation, and it must show where it came from).
    const cust = countedForecast(forecasts, id, profile);
    const src = sourceOf(a.sources, cust ? cust.source : profile ?? "none", n);
    const replaced = cust?.replaced;
    const annual = loc.annual_kwh ?? 0;
    // One pass over the values: per quarter-hour the location's profile values out (a metered
    // profile location is settled by its meter), its meter in, and its forecast and actual to
    // its source — per quarter-hour in the order separate loops would add them.
    const kwh = rec.kwh, len = kwh.length, kw = a.kw, k = -s * annual;
    let full = true;
    for (let i = 0; i < n; i++) {
      if (shape) kw[i] += shape[i] * k;
      const v = i < len ? kwh[i] : NaN;
      if (v !== v) { // NaN: not metered
        a.unknown[i] = 1;
        full = false;
        continue;
      }
      kw[i] += s * v * 4;
      const f = cust ? cust.values[i] : shape ? shape[i] * annual : 0;
      src.f[i] += f;
      src.a[i] += v * 4;
      src.abs += Math.abs(f - v * 4);
      const b = replaced ? replaced[i] : NaN;
      if (b === b) {
        // kW over the quarter-hour: what the replaced forecast missed by, less what this one did.
        const saved = Math.abs(b - v * 4) - Math.abs(f - v * 4);
        src.saved.kwh += saved * 0.25;
        src.saved.n++;
        const p = priceOf(i);
        if (p === p) src.saved.eur += saved * 0.25 / 1000 * p, src.saved.priced++;
      }
    }
    if (full) a.complete++;
    else a.incomplete++;
    if (rec.quality) a.quality.add(rec.quality, rec.substitutes);
  };
  let meteredAny = false;
  let pending: Promise<void> = Promise.resolve();
  for await (const batch of actualsBatches(kv, day)) {
    meteredAny = true;
    const locations = facts.read(batch.map(([id]) => id));
    // Summed in order, one batch after the other, while the next one is listed.
    pending = Promise.all([pending, locations]).then(([, locs]) =>
      batch.forEach(([id, rec], k) => add(id, rec, locs[k]))
    );
    pending.catch(() => {}); // a failure is thrown by the `await` below, not left unhandled
  }
  await pending;
  const classes = classesOf(table.table);
  const areas: AreaInputs[] = [];
  let any = meteredAny || sums.length > 0;
  for (const [area, a] of per) {
    const history = await versionHistory(kv, day, area);
    if (history.length) any = true;
    let profileCount = 0, withoutProfile = 0;
    for (const c of classes) {
      if (c.control_area !== area) continue;
      if (!c.profile) {
        withoutProfile += c.count;
        continue;
      }
      profileCount += c.count;
      addShape(a.kw, c.profile, sign(c.direction) * c.wh / 1000);
    }
    const missingPlain = Math.max(0, withoutProfile - a.meteredPlain);
    const mlMw = Array.from(
      { length: n },
      (_, i) => a.unknown[i] || missingPlain > 0 ? null : a.kw[i] / 1000,
    );
    areas.push({
      control_area: area,
      name: tsoName(area) ?? area,
      quarter_hours: quarterHours,
      ...schedules(history),
      market_location_mw: mlMw,
      market_location_quality: a.quality.summary(),
      ...balancingGroupMw(cfg, area, sums, n),
      price_short: prices?.short ?? null,
      price_long: prices?.long ?? null,
      price_source: prices ? priceSources(prices) : null,
      id_aep: idAep?.price ?? null,
      trade_price: (await tradesOfDay(kv, day, area))?.price_eur_mwh ?? null,
      locations: {
        metered: a.complete,
        profile_settled: Math.max(0, profileCount - a.meteredProfile),
        missing: missingPlain + a.incomplete,
      },
      by_source: [...a.sources].map(([source, v]) => {
        let mad = 0;
        for (let i = 0; i < n; i++) mad += Math.abs(v.f[i] - v.a[i]);
        const learned = source === "learned" || source === "customer_corrected";
        return {
          source,
          locations: v.locations,
          mad_mw: Math.round((mad / n) * 1e3) / 1e6,
          abs_deviation_mwh: Math.round(v.abs * 0.25 / 1000 * 1e6) / 1e6,
          ...(learned
            ? {
              saved: {
                replaced: source === "learned"
                  ? "load_7_days_before" as const
                  : "customer" as const,
                mwh: Math.round(v.saved.kwh / 1000 * 1e6) / 1e6 || 0,
                eur: v.saved.priced ? Math.round(v.saved.eur * 100) / 100 || 0 : null,
                quarter_hours: v.saved.n,
                priced_quarter_hours: v.saved.priced,
              },
            }
            : {}),
        };
      }).sort((x, y) => (y.abs_deviation_mwh ?? 0) - (x.abs_deviation_mwh ?? 0)),
    });
  }
  return { areas, any, id_aep: idAep?.price ?? null };
}

/** Schedule and day-ahead of an area's version history. */
function schedules(
  history: ScheduleVersionRecord[],
): Pick<AreaInputs, "schedule" | "day_ahead" | "before_correction"> {
  const standing = standingVersion(history);
  const da = history.filter((h) => h.phase === "day_ahead").at(-1);
  const of = (v: ScheduleVersionRecord | null | undefined) =>
    v ? { version: v.version, mw: v.quantities } : null;
  // The schedule as delivery ended: what the day-ahead and intraday versions left standing.
  const delivered = standingVersion(history.filter((h) => h.phase !== "post_delivery"));
  return {
    schedule: of(standing),
    day_ahead: of(da),
    before_correction: standing?.phase === "post_delivery" ? of(delivered) : null,
  };
}

/**
 * The area's balancing-group sum actual, MW, and the quality of its values: Σ of the sums of its
 * balancing areas (`balancing_areas`, `LOC+237` sums of any balancing group) and of its MaBiS
 * metering points (`mabis_metering_points`, 13003 sums); `null` unless the area has at least one
 * such source and every one has a complete sum for the day.
 */
function balancingGroupMw(
  cfg: EffectiveConfig,
  area: string,
  sums: readonly StoredActuals[],
  n: number,
): Pick<AreaInputs, "balancing_group_mw" | "balancing_group_quality"> {
  const none = { balancing_group_mw: null, balancing_group_quality: null };
  const areas = balancingAreasOf(cfg.balancing_areas ?? [], area);
  const points = meteringPointsOf(cfg.mabis_metering_points ?? [], area);
  if (areas.length + points.length === 0) return none;
  const complete = (s: StoredActuals) => s.kwh.every((v) => v !== null);
  const parts: StoredActuals[] = [];
  for (const ba of areas) {
    const mine = sums.filter((s) =>
      s.owner.kind === "balancing_group_sum" && s.owner.balancing_area === ba && complete(s)
    );
    if (mine.length === 0) return none;
    parts.push(...mine);
  }
  for (const point of points) {
    const mine = sums.find((s) =>
      s.owner.kind === "metering_point_sum" && s.owner.metering_point === point
    );
    if (!mine || !complete(mine)) return none;
    parts.push(mine);
  }
  const out = new Array<number>(n).fill(0);
  const quality = new QualityTally(n);
  for (const s of parts) {
    for (let i = 0; i < n; i++) out[i] += (s.kwh[i] as number) * 4 / 1000;
    quality.add(s.quality, s.substitutes);
  }
  return { balancing_group_mw: out, balancing_group_quality: quality.summary() };
}

/**
 * The sum of a metered location's source (the source of its forecast — `customer`, a learned one
 * — else its profile class, else `none`), counted.
 */
function sourceOf(sources: Map<string, SourceSum>, source: string, n: number): SourceSum {
  let s = sources.get(source);
  if (!s) {
    sources.set(
      source,
      s = {
        locations: 0,
        f: new Float64Array(n),
        a: new Float64Array(n),
        abs: 0,
        saved: { kwh: 0, eur: 0, n: 0, priced: 0 },
      },
    );
  }
  s.locations++;
  return s;
}
