/**
 * Forecast storage and ingestion (docs/pipeline.md, "Forecasts"): one forecast per market location and delivery
 * day under `["forecasts", <day>, <malo_id>]`, average kW per real quarter-hour (92/96/100).
 * A customer forecast wins over a generated one; a newer forecast supersedes the older one.
 *
 * Two stored layouts, both read everywhere ({@link forecastValues}):
 * - {@link ValuesForecast} `{values, source, received_at, by}`: the values themselves. Customer
 *   forecasts, and generated forecasts written before profile references existed.
 * - {@link ProfileForecast} `{source: "generated", profile, annual_kwh, region, shape, …}`: a
 *   generated forecast as a reference to its standard load profile; the values are computed on
 *   read as `round3(shape × annual_kwh)`, bit-identical to what the generator used to store.
 *   About 150 bytes instead of ~1 KiB of serialized numbers per location and day.
 * @module
 */
import { GateClosed } from "../domain/errors.ts";
import { deliveryDay } from "../domain/delivery_day.ts";
import {
  generateProfileForecast,
  type ProfileCode,
  sharedProfileShape,
} from "../domain/slp/profile.ts";
import { getManyChunked, retryKv } from "../store/kv.ts";
import { type DayState, emptyDay, inputChanged, withDayLock, writeDay } from "./day_state.ts";
import { KEYS } from "../store/keys.ts";

/** Who produced a forecast. */
export type ForecastSource = "customer" | "generated";

/** A forecast stored with its values (every customer forecast; older generated ones). */
export interface ValuesForecast {
  /** Average kW per quarter-hour of the delivery day, in time order. */
  values: number[];
  source: ForecastSource;
  /** ISO-8601 UTC instant it was accepted. */
  received_at: string;
  /** Caller name, or `orchestrator`. */
  by: string;
}

/**
 * A generated forecast stored as a reference to its standard load profile: its values (average
 * kW per quarter-hour) are {@link generatedValues}`(profile, annual_kwh, day, region)`.
 */
export interface ProfileForecast {
  source: "generated";
  /** BDEW profile code the values come from. */
  profile: ProfileCode;
  /** Annual energy of the market location at generation time, kWh/a. */
  annual_kwh: number;
  /** Holiday region the day type was taken from, e.g. `DE`. */
  region: string;
  /** `shapeFingerprint(profile, day, region)` at generation time (detects changed tables). */
  shape: string;
  /** ISO-8601 UTC instant it was generated. */
  received_at: string;
  /** Caller name, or `orchestrator`. */
  by: string;
}

/** A stored forecast, in either layout. */
export type StoredForecast = ValuesForecast | ProfileForecast;

/** True for the reference layout (values computed on read). */
export function isProfileForecast(f: StoredForecast): f is ProfileForecast {
  return !("values" in f);
}

/** kW rounded to 3 decimals (1 W), as generated forecasts are stored and summed. */
export const roundKw = (kw: number): number => Math.round(kw * 1000) / 1000;

/**
 * Values of a generated forecast: the profile forecast (shape × annual kWh, see
 * `lib/domain/slp/profile.ts`) rounded to 1 W.
 * @returns average kW per real quarter-hour of `day` (92/96/100 values)
 */
export function generatedValues(
  profile: ProfileCode,
  annualKwh: number,
  day: string,
  region: string,
): number[] {
  return generateProfileForecast(profile, annualKwh, day, region).map(roundKw);
}

/**
 * Values of a stored forecast of `day`, whichever layout it was stored in.
 * @returns average kW per quarter-hour, in time order (a fresh array for references; the stored
 *   array itself for the values layout)
 */
export function forecastValues(f: StoredForecast, day: string): number[] {
  return isProfileForecast(f) ? generatedValues(f.profile, f.annual_kwh, day, f.region) : f.values;
}

/**
 * Adds `sign ×` the forecast's values to `acc` (kW per quarter-hour), without building an array
 * for references: for the reference layout each term is `roundKw(shape[i] × annual_kwh)`, the
 * very number {@link generatedValues} returns, so the sums are bit-identical to summing stored
 * values in the same order.
 * @returns false (nothing added) when the forecast does not have `acc.length` values
 */
export function addForecastTo(
  acc: Float64Array,
  sign: 1 | -1,
  f: StoredForecast,
  day: string,
): boolean {
  const n = acc.length;
  if (isProfileForecast(f)) {
    const shape = sharedProfileShape(f.profile, day, f.region);
    if (shape.length !== n) return false;
    const kwh = f.annual_kwh;
    for (let i = 0; i < n; i++) acc[i] += sign * (Math.round(shape[i] * kwh * 1000) / 1000);
    return true;
  }
  const values = f.values;
  if (values.length !== n) return false;
  for (let i = 0; i < n; i++) acc[i] += sign * values[i];
  return true;
}

/** One forecast to ingest (already validated: known location, right count, finite values). */
export interface ForecastItem {
  malo_id: string;
  delivery_day: string;
  values: number[];
}

/** Result of an ingestion, per delivery day. */
export interface IngestResult {
  delivery_day: string;
  /** Market locations whose forecast changed. */
  changed: number;
  /** Market locations re-posted with identical values (idempotent). */
  unchanged: number;
  /** The day's input version after the request. */
  input_version: number;
}

/** Largest batch accepted in one request (one KV atomic; KV allows 1,000 mutations, 800 KiB). */
export const MAX_BATCH = 500;

/** KV key of one forecast. */
export const forecastKey = KEYS.forecast;

const sameValues = (a: number[], b: number[]) =>
  a.length === b.length && a.every((v, i) => v === b[i]);

/** Runs `fn` holding the in-process locks of every day, taken in date order. */
function withDayLocks<T>(kv: Deno.Kv, days: string[], fn: () => Promise<T>): Promise<T> {
  const [first, ...rest] = [...days].sort();
  if (first === undefined) return fn();
  return withDayLock(kv, first, () => withDayLocks(kv, rest, fn));
}

/**
 * Refuses a delivery day whose gate closure has passed.
 * @throws {GateClosed} naming the gate-closure instant
 */
export function assertBeforeGateClosure(
  day: string,
  nowMs: number,
  gateClosureLocalTime: string,
  what: string,
): void {
  const gc = deliveryDay(day, gateClosureLocalTime).gateClosure;
  if (gc.epochMilliseconds <= nowMs) {
    throw new GateClosed(
      `Gate closure for delivery day ${day} was ${gc.toString()} (${gateClosureLocalTime} Europe/Berlin on the day before); ${what}.`,
    );
  }
}

/**
 * Stores customer forecasts, all or nothing: one atomic that checks every touched day state,
 * writes the changed forecasts and bumps each day's `input_version` by one when anything of
 * that day changed.
 * @param items at most {@link MAX_BATCH}; validated by the caller
 * @throws {GateClosed} when a day's gate closure has passed (nothing is written)
 */
export function ingestForecasts(
  kv: Deno.Kv,
  items: ForecastItem[],
  by: string,
  nowMs: number,
  gateClosureLocalTime: string,
): Promise<IngestResult[]> {
  const days = [...new Set(items.map((i) => i.delivery_day))].sort();
  for (const d of days) {
    assertBeforeGateClosure(d, nowMs, gateClosureLocalTime, "forecasts are no longer accepted");
  }
  return withDayLocks(kv, days, () =>
    retryKv("ingest forecasts", async () => {
      // Day states first, then the forecasts: a forecast changed after the day read also bumped
      // the day, so the commit's check fails and this round reads again (never stale
      // "unchanged" answers). The forecast chunks themselves are read concurrently.
      const dayEntries = await getManyChunked<DayState>(kv, days.map((d) => KEYS.day(d)));
      const existing = (await getManyChunked<StoredForecast>(
        kv,
        items.map((it) => forecastKey(it.delivery_day, it.malo_id)),
      )).map((e) => e.value);
      const at = new Date(nowMs).toISOString();
      const op = kv.atomic();
      const changedPerDay = new Map<string, Set<string>>();
      const unchangedPerDay = new Map<string, number>();
      items.forEach((it, i) => {
        const prev = existing[i];
        if (
          prev && prev.source === "customer" && !isProfileForecast(prev) &&
          sameValues(prev.values, it.values)
        ) {
          unchangedPerDay.set(it.delivery_day, (unchangedPerDay.get(it.delivery_day) ?? 0) + 1);
          return;
        }
        op.set(
          forecastKey(it.delivery_day, it.malo_id),
          {
            values: it.values,
            source: "customer",
            received_at: at,
            by,
          } satisfies ValuesForecast,
        );
        const set = changedPerDay.get(it.delivery_day) ?? new Set();
        set.add(it.malo_id);
        changedPerDay.set(it.delivery_day, set);
      });
      const results: IngestResult[] = [];
      days.forEach((d, i) => {
        const entry = dayEntries[i];
        const state = entry.value ?? emptyDay(d);
        const changed = changedPerDay.get(d)?.size ?? 0;
        if (changed) {
          writeDay(
            op,
            entry,
            inputChanged(state, { at, by, market_locations: changed, source: "customer" }),
          );
        } else op.check(entry);
        results.push({
          delivery_day: d,
          changed,
          unchanged: unchangedPerDay.get(d) ?? 0,
          input_version: state.input_version + (changed ? 1 : 0),
        });
      });
      if (!changedPerDay.size) return results;
      const r = await op.commit();
      return r.ok ? results : undefined;
    }));
}

/** Every stored forecast of a day (either layout), by MaLo-ID. */
export async function forecastsOfDay(
  kv: Deno.Kv,
  day: string,
): Promise<Map<string, Deno.KvEntry<StoredForecast>>> {
  const out = new Map<string, Deno.KvEntry<StoredForecast>>();
  for await (
    const e of kv.list<StoredForecast>(KEYS.forecastsOfDay(day), { batchSize: 1000 })
  ) out.set(e.key[2] as string, e);
  return out;
}
