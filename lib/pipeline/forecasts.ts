/**
 * Forecast storage and ingestion (docs/pipeline.md, "Forecasts"): the customer's forecast of one
 * market location and delivery day under `["forecasts", <day>, <malo_id>]`, average kW per real
 * quarter-hour (92/96/100). A customer forecast replaces its location's profile value; a newer
 * forecast supersedes the older one.
 *
 * Generated (profile) forecasts are not stored per location (`./generate.ts`). Records of earlier
 * versions may still be found under the same keys with `source: "generated"` — with their values
 * ({@link ValuesForecast}) or as a profile reference ({@link LegacyProfileForecast}); they are not
 * read as forecasts and the day's next forecast step deletes them.
 * @module
 */
import { assertForecastOpen } from "../domain/deadlines.ts";
import { deliveryDay } from "../domain/delivery_day.ts";
import type { ProfileCode } from "../domain/slp/profile.ts";
import { getManyChunked, getManyInRange, maxChecks } from "../store/kv.ts";
import { retryWithTurn } from "../store/turn.ts";
import { type DayState, emptyDay, inputChanged, withDayLock, writeDay } from "./day_state.ts";
import { KEYS } from "../store/keys.ts";
import { withMasterDataLock } from "./master_data.ts";

/** Who produced a forecast. */
export type ForecastSource = "customer" | "generated";

/** A forecast stored with its values (every customer forecast; generated ones of early versions). */
export interface ValuesForecast {
  /**
   * Average kW per quarter-hour of the delivery day, in time order. Stored as the plain array
   * the upload was parsed into; records written by the previous version hold a `Float64Array` of
   * the same values. Read either by index. (Measured on one core, 500 forecasts of 96 values: the
   * copy into a `Float64Array` made each batch's write about 1.1 ms slower, 6.4 instead of 5.3
   * ms, and reading back was no faster, 3.4 against 3.5 ms.)
   */
  values: Float64Array | number[];
  source: ForecastSource;
  /** ISO-8601 UTC instant it was accepted. */
  received_at: string;
  /** Caller name, or `orchestrator`. */
  by: string;
}

/** A generated forecast stored as a profile reference by an earlier version (not read any more). */
export interface LegacyProfileForecast {
  source: "generated";
  profile: ProfileCode;
  annual_kwh: number;
  region: string;
  shape: string;
  received_at: string;
  by: string;
}

/** A stored forecast record, in any layout. */
export type StoredForecast = ValuesForecast | LegacyProfileForecast;

/** True for an earlier version's profile reference (no values). */
export function isProfileForecast(f: StoredForecast): f is LegacyProfileForecast {
  return !("values" in f);
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

function sameValues(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Runs `fn` (one round of an upload) holding this process's master-data lock, then the locks of
 * every day: a forecast upload's round queues behind the process's master-data changes, whose
 * commits bump every open day and would make it lose; the single changes are grouped
 * (`./location_put_group.ts`), so the queue stays short (docs/mixed-load.md).
 */
function withUploadLocks<T>(kv: Deno.Kv, days: string[], fn: () => Promise<T>): Promise<T> {
  return withMasterDataLock(kv, () => withDayLocks(kv, days, fn));
}

/** Runs `fn` holding the in-process locks of every day, taken in date order. */
function withDayLocks<T>(kv: Deno.Kv, days: string[], fn: () => Promise<T>): Promise<T> {
  const [first, ...rest] = [...days].sort();
  if (first === undefined) return fn();
  return withDayLock(kv, first, () => withDayLocks(kv, rest, fn));
}

/**
 * Stores customer forecasts, all or nothing: one atomic that checks every touched day state,
 * writes the changed forecasts and bumps each day's `input_version` by one when anything of
 * that day changed. The atomic checks each day and the turn; where the store allows fewer
 * checks than that ({@link maxChecks}: 10 over KV Connect to `denokv`, docs/kv.md), the days go
 * in groups of 9 in date order, one atomic each, each all or nothing.
 * @param items at most {@link MAX_BATCH}; validated by the caller
 * Accepted until the day's last quarter-hour has started (docs/intraday.md, "Forecasts until the
 * day ends"): quarter-hours inside the lead time are stored for the record, but the schedule
 * versions freeze them (`lib/fahrplan/freeze.ts`).
 * @throws {GateClosed} when a day's last quarter-hour has started (nothing is written)
 * @throws {import("../store/kv.ts").KvContentionError} when the rounds ran out (answered 503;
 *   the groups before the one that ran out are stored)
 */
export async function ingestForecasts(
  kv: Deno.Kv,
  items: ForecastItem[],
  by: string,
  nowMs: number,
): Promise<IngestResult[]> {
  const days = [...new Set(items.map((i) => i.delivery_day))].sort();
  for (const d of days) {
    assertForecastOpen(deliveryDay(d), nowMs, "forecasts are no longer accepted");
  }
  const perAtomic = maxChecks(kv) - 1; // the turn's check beside the days'
  const results: IngestResult[] = [];
  for (let i = 0; i < days.length; i += perAtomic) {
    const group = days.slice(i, i + perAtomic);
    const mine = group.length === days.length
      ? items
      : items.filter((it) => group.includes(it.delivery_day));
    results.push(...await ingestDays(kv, mine, group, by, nowMs));
  }
  return results;
}

/**
 * One atomic of {@link ingestForecasts}: the `items` of `days` (sorted); each round holds the
 * upload locks of these days, the backoff between rounds does not.
 */
function ingestDays(
  kv: Deno.Kv,
  items: ForecastItem[],
  days: string[],
  by: string,
  nowMs: number,
): Promise<IngestResult[]> {
  // Replicas take turns after three lost rounds (docs/architecture.md, "Writes and concurrency").
  const lock = <R>(fn: () => Promise<R>) => withUploadLocks(kv, days, fn);
  return retryWithTurn(kv, KEYS.forecastTurn, "ingest forecasts", async (turn) => {
    // Day states first, then the forecasts: a forecast changed after the day read also bumped
    // the day, so the commit's check fails and this round reads again (never stale
    // "unchanged" answers). The forecast chunks themselves are read concurrently.
    const dayEntries = await getManyChunked<DayState>(kv, days.map((d) => KEYS.day(d)));
    const existing = await existingForecasts(kv, items);
    const at = new Date(nowMs).toISOString();
    const op = turn.guard(kv.atomic());
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
  }, { lock });
}

/** The stored forecast of each item (`null`: none), in `items` order; one range read per day. */
async function existingForecasts(
  kv: Deno.Kv,
  items: ForecastItem[],
): Promise<(StoredForecast | null)[]> {
  const out: (StoredForecast | null)[] = new Array(items.length).fill(null);
  const byDay = new Map<string, number[]>();
  items.forEach((it, i) => {
    const list = byDay.get(it.delivery_day);
    if (list) list.push(i);
    else byDay.set(it.delivery_day, [i]);
  });
  await Promise.all([...byDay].map(async ([day, idx]) => {
    const entries = await getManyInRange<StoredForecast>(
      kv,
      KEYS.forecastPrefixOfDay(day),
      idx.map((i) => items[i].malo_id),
    );
    idx.forEach((i, k) => out[i] = entries[k].value);
  }));
  return out;
}

/** Every stored forecast of a day (either layout), by MaLo-ID. */
export async function forecastsOfDay(
  kv: Deno.Kv,
  day: string,
): Promise<Map<string, Deno.KvEntry<StoredForecast>>> {
  const out = new Map<string, Deno.KvEntry<StoredForecast>>();
  for await (
    // Small batches: each is deserialized in one go, and a day of 10,000 customer forecasts must
    // not hold the event loop for long (the API stays responsive during a pass).
    const e of kv.list<StoredForecast>(KEYS.forecastsOfDay(day), { batchSize: 100 })
  ) out.set(e.key[2] as string, e);
  return out;
}

/** How a learned forecast was made (docs/forecasting.md, "In the service"). */
export type LearnedMethod =
  | "learned"
  | "learned_without_weather"
  | "load_7_days_before"
  | "customer_corrected";

/**
 * A learned forecast of one metered market location and day, under
 * `["learned_forecasts", <day>, <malo_id>]`: a model fitted on the location's actuals and
 * weather (or its labelled fallback), or the customer's forecast corrected by its errors. Written
 * by the forecast step (`./learned_refresh.ts`); where it counts instead of the customer forecast:
 * {@link effectiveForecast}.
 */
export interface LearnedForecast {
  /** Average kW per quarter-hour of the day (92/96/100), in time order. */
  values: number[];
  method: LearnedMethod;
  /** Why this method, in words (e.g. "10 of 14 days of actuals"). */
  reason: string;
  /** The cut-off it was made at (ISO-8601 UTC): only what was received before it was used. */
  made_at: string;
  /**
   * `received_at` of the customer forecast it corrects (`customer_corrected`); `null` otherwise.
   * A newer customer forecast makes the correction void until the next forecast step.
   */
  customer_received_at: string | null;
  /**
   * True when it counts also where the customer sent a forecast (`forecast_method: learned`);
   * false (`auto`): only where the customer sent none.
   */
  replaces_customer: boolean;
  /**
   * The values as they stood at the day's gate closure — the day-ahead forecast — kept once a
   * later forecast step changed them (intraday); absent while they are unchanged since.
   */
  day_ahead?: number[];
  /** Caller name, or `orchestrator`. */
  by: string;
}

/** Which forecast counts for a location and day, and where it came from. */
export interface EffectiveForecast {
  values: Float64Array | number[];
  source: "customer" | "learned" | "customer_corrected";
}

/**
 * The forecast that counts for a metered location and day (docs/forecasting.md, "In the
 * service"): a correction only while the customer forecast it corrects is the latest one; a
 * learned forecast where it replaces the customer's (`forecast_method: learned`) or where the
 * customer sent none; else the customer forecast; `null` when there is neither.
 */
export function effectiveForecast(
  customer: ValuesForecast | null,
  learned: LearnedForecast | null,
): EffectiveForecast | null {
  if (learned?.method === "customer_corrected") {
    if (customer && customer.received_at === learned.customer_received_at) {
      return { values: learned.values, source: "customer_corrected" };
    }
  } else if (learned && (learned.replaces_customer || !customer)) {
    return { values: learned.values, source: "learned" };
  }
  return customer ? { values: customer.values, source: "customer" } : null;
}

/** Every learned forecast of a day, by MaLo-ID. */
export async function learnedForecastsOfDay(
  kv: Deno.Kv,
  day: string,
): Promise<Map<string, LearnedForecast>> {
  const out = new Map<string, LearnedForecast>();
  for await (
    const e of kv.list<LearnedForecast>(KEYS.learnedForecastsOfDay(day), { batchSize: 100 })
  ) out.set(e.key[2] as string, e.value);
  return out;
}

/** The learned forecast of each of `ids` (MaLo-ID order is fastest) for `day`; `null`: none. */
export async function learnedForecastsOf(
  kv: Deno.Kv,
  day: string,
  ids: string[],
): Promise<(LearnedForecast | null)[]> {
  const entries = await getManyInRange<LearnedForecast>(
    kv,
    KEYS.learnedForecastPrefixOfDay(day),
    ids,
  );
  return entries.map((e) => e.value);
}

/** The customer forecast of each of `ids` for `day` (`null`: none, or an earlier layout). */
export async function customerForecastsOf(
  kv: Deno.Kv,
  day: string,
  ids: string[],
): Promise<(ValuesForecast | null)[]> {
  const entries = await getManyInRange<StoredForecast>(kv, KEYS.forecastPrefixOfDay(day), ids);
  return entries.map((e) =>
    e.value && e.value.source === "customer" && !isProfileForecast(e.value) ? e.value : null
  );
}

/** Learned forecasts written or deleted per atomic (each about 1–2 KiB; KV allows 800 KiB). */
const LEARNED_BATCH = 200;

/**
 * Writes (or, for `null`, deletes) learned forecasts of `day`, {@link LEARNED_BATCH} to an
 * atomic. Unchecked: the forecast step is their one writer, and two runs of it on the same inputs
 * write the same values.
 */
export async function writeLearnedForecasts(
  kv: Deno.Kv,
  day: string,
  writes: { malo_id: string; forecast: LearnedForecast | null }[],
): Promise<void> {
  for (let i = 0; i < writes.length; i += LEARNED_BATCH) {
    const op = kv.atomic();
    for (const w of writes.slice(i, i + LEARNED_BATCH)) {
      const key = KEYS.learnedForecast(day, w.malo_id);
      if (w.forecast) op.set(key, w.forecast);
      else op.delete(key);
    }
    const r = await op.commit();
    if (!r.ok) throw new Error(`writing the learned forecasts of ${day} failed`);
  }
}
