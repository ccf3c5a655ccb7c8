/**
 * Aggregation (docs/pipeline.md, "Aggregation"): the open position per active control area,
 * MW per quarter-hour, consumption positive and generation negative — profile locations summed
 * per class, customer forecasts replacing their location's profile value (`./open_position.ts`).
 * Stored under `["aggregates", <day>]` with the input version it reflects.
 * @module
 */
import { deliveryDay } from "../domain/delivery_day.ts";
import { type DayState, emptyDay, readDay, updateDay } from "./day_state.ts";
import { readDayInputs } from "./day_inputs.ts";
import { shapeModules } from "./shape_modules.ts";
import { KEYS } from "../store/keys.ts";
import { areaTotals } from "./totals.ts";

/** A stored aggregate: the open position of one delivery day. */
export interface Aggregate {
  delivery_day: string;
  /** Input version of the day this aggregate reflects (its "aggregate version"). */
  version: number;
  computed_at: string;
  unit: "MW";
  /** Start of every quarter-hour, ISO-8601 UTC. */
  quarter_hours: string[];
  /** Active control area EIC → MW per quarter-hour (consumption +, generation −). */
  areas: Record<string, number[]>;
  counts: {
    /** Market locations summed. */
    market_locations: number;
    /** Market locations of inactive control areas, ignored. */
    inactive_area: number;
    /** Market locations of active areas without a forecast for the day. */
    missing_forecast: number;
    /** Forecasts of market locations that no longer exist, ignored. */
    unknown_location: number;
  };
}

/** KV key of a day's aggregate. */
export const aggregateKey = KEYS.aggregate;

/** Reads the latest aggregate of a day. */
export async function readAggregate(kv: Deno.Kv, day: string): Promise<Aggregate | null> {
  return (await kv.get<Aggregate>(aggregateKey(day))).value;
}

/**
 * Aggregates a day and records the `aggregated` step in the same atomic. Profile locations count
 * once the day's `forecast` step has run; until then they are missing unless a customer forecast
 * covers them.
 *
 * Like the forecast step (docs/pipeline.md, "The forecast step under steady input"), the inputs
 * are read once, after the day state, and only the commit is retried (one read of the day state
 * and one commit a round): the aggregate carries the input version read, and is stale at once
 * when input arrived meanwhile. A record of a later version, written meanwhile by another run,
 * stands (this run's aggregate is returned, not stored).
 * @param opts.activeAreas EICs of the active control areas
 * @param opts.region holiday region of the profiles' day types (`holiday_region`, e.g. `DE`),
 *   unless the day's forecast step recorded the one it used
 * @throws {import("../store/kv.ts").KvContentionError} when the commit's rounds ran out
 */
export async function aggregateDay(
  kv: Deno.Kv,
  day: string,
  opts: { by: string; nowMs: number; activeAreas: string[]; region: string },
): Promise<Aggregate> {
  const d = deliveryDay(day);
  // The day first: whatever changes the inputs after this read also bumps the day.
  const read = (await readDay(kv, day)).value ?? emptyDay(day);
  const version = read.input_version;
  // The region the forecast step generated with (a later change of the setting takes effect
  // with the next forecast step).
  const region = String(read.steps.forecast?.detail?.region ?? opts.region);
  const inputs = await readDayInputs(kv, day);
  const { openPosition: { openPosition, warmShapes }, missingEnergy: { missingEnergy } } =
    await shapeModules();
  await warmShapes(inputs.classes, day, region);
  const how = {
    region,
    activeAreas: opts.activeAreas,
    withProfiles: read.steps.forecast !== undefined,
  };
  const { sums, counts } = openPosition(inputs, day, how);
  const areas: Record<string, number[]> = {};
  for (const [a, acc] of Object.entries(sums)) {
    areas[a] = Array.from(acc, (kw) => Math.round(kw * 1000) / 1e6); // kW → MW, 1 W steps
  }
  const aggregate: Aggregate = {
    delivery_day: day,
    version,
    computed_at: new Date(opts.nowMs).toISOString(),
    unit: "MW",
    quarter_hours: d.quarterHours.map((q) => q.toString()),
    areas,
    counts,
  };
  const record = {
    version,
    at: aggregate.computed_at,
    by: opts.by,
    detail: {
      ...counts,
      areas: opts.activeAreas.length,
      // What of the day's expected energy lies with the locations without forecast.
      missing_energy: missingEnergy(inputs, day, how),
      // Energy (MWh) and peak (MW) per control area, for the overview.
      totals: Object.fromEntries(Object.entries(areas).map(([a, mw]) => [a, areaTotals(mw)])),
    },
  };
  await updateDay(kv, day, (state: DayState) => {
    const prev = state.steps.aggregated;
    if (prev && prev.version > version) return Promise.resolve(null); // a later run's stands
    if (state.failures) delete state.failures.aggregated; // a success clears the step's failure
    state.steps.aggregated = record;
    return Promise.resolve({
      state,
      extra: (op: Deno.AtomicOperation) => op.set(aggregateKey(day), aggregate),
      result: aggregate,
    });
  });
  return aggregate;
}

/**
 * How many of the day's market locations (in active control areas) have a forecast: `with`,
 * `missing`, `of` (both together) and `share` (`with / of`; 1 for a day without any).
 */
export function forecastCoverage(
  counts: { market_locations: number; missing_forecast: number } | undefined,
): { with: number; missing: number; of: number; share: number } {
  const withForecast = counts?.market_locations ?? 0;
  const missing = counts?.missing_forecast ?? 0;
  const of = withForecast + missing;
  return { with: withForecast, missing, of, share: of === 0 ? 1 : withForecast / of };
}
