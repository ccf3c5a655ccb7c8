/**
 * Forecast storage and ingestion (DESIGN §8): one forecast per market location and delivery
 * day under `["forecasts", <day>, <malo_id>]`, average kW per real quarter-hour (92/96/100).
 * A customer forecast wins over a generated one; a newer forecast supersedes the older one.
 * @module
 */
import { HttpProblem } from "../http/errors.ts";
import { deliveryDay } from "../domain/delivery_day.ts";
import { retryKv } from "../store/kv.ts";
import { type DayState, emptyDay, withDayLock } from "./day_state.ts";

/** Who produced a forecast. */
export type ForecastSource = "customer" | "generated";

/** A stored forecast. */
export interface StoredForecast {
  /** Average kW per quarter-hour of the delivery day, in time order. */
  values: number[];
  source: ForecastSource;
  /** ISO-8601 UTC instant it was accepted. */
  received_at: string;
  /** Caller name, or `orchestrator`. */
  by: string;
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
export const forecastKey = (day: string, malo: string): Deno.KvKey => ["forecasts", day, malo];

const sameValues = (a: number[], b: number[]) =>
  a.length === b.length && a.every((v, i) => v === b[i]);

/** Runs `fn` holding the in-process locks of every day, taken in date order. */
function withDayLocks<T>(days: string[], fn: () => Promise<T>): Promise<T> {
  const [first, ...rest] = [...days].sort();
  if (first === undefined) return fn();
  return withDayLock(first, () => withDayLocks(rest, fn));
}

/**
 * Refuses a delivery day whose gate closure has passed.
 * @throws {HttpProblem} 409 naming the gate-closure instant
 */
export function assertBeforeGateClosure(
  day: string,
  nowMs: number,
  gateClosureLocalTime: string,
  what: string,
): void {
  const gc = deliveryDay(day, gateClosureLocalTime).gateClosure;
  if (gc.epochMilliseconds <= nowMs) {
    throw new HttpProblem(
      409,
      `Gate closure for delivery day ${day} was ${gc.toString()} (${gateClosureLocalTime} Europe/Berlin on the day before); ${what}.`,
    );
  }
}

/**
 * Stores customer forecasts, all or nothing: one atomic that checks every touched day state,
 * writes the changed forecasts and bumps each day's `input_version` by one when anything of
 * that day changed.
 * @param items at most {@link MAX_BATCH}; validated by the caller
 * @throws {HttpProblem} 409 when a day's gate closure has passed (nothing is written)
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
  return withDayLocks(days, () =>
    retryKv("ingest forecasts", async () => {
      const dayEntries = await kv.getMany<DayState[]>(days.map((d) => ["days", d]));
      const existing: (StoredForecast | null)[] = [];
      for (let i = 0; i < items.length; i += 10) {
        const chunk = items.slice(i, i + 10).map((it) => forecastKey(it.delivery_day, it.malo_id));
        for (const e of await kv.getMany<StoredForecast[]>(chunk)) existing.push(e.value);
      }
      const at = new Date(nowMs).toISOString();
      const op = kv.atomic();
      const changedPerDay = new Map<string, Set<string>>();
      const unchangedPerDay = new Map<string, number>();
      items.forEach((it, i) => {
        const prev = existing[i];
        if (prev && prev.source === "customer" && sameValues(prev.values, it.values)) {
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
          } satisfies StoredForecast,
        );
        const set = changedPerDay.get(it.delivery_day) ?? new Set();
        set.add(it.malo_id);
        changedPerDay.set(it.delivery_day, set);
      });
      const results: IngestResult[] = [];
      days.forEach((d, i) => {
        const entry = dayEntries[i];
        op.check(entry);
        const state = entry.value ?? emptyDay(d);
        const changed = changedPerDay.get(d)?.size ?? 0;
        if (changed) {
          op.set(
            ["days", d],
            {
              ...state,
              input_version: state.input_version + 1,
              last_input: { at, by, market_locations: changed, source: "customer" },
            } satisfies DayState,
          );
        }
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

/** Every stored forecast of a day, by MaLo-ID. */
export async function forecastsOfDay(
  kv: Deno.Kv,
  day: string,
): Promise<Map<string, Deno.KvEntry<StoredForecast>>> {
  const out = new Map<string, Deno.KvEntry<StoredForecast>>();
  for await (
    const e of kv.list<StoredForecast>({ prefix: ["forecasts", day] }, { batchSize: 1000 })
  ) out.set(e.key[2] as string, e);
  return out;
}
