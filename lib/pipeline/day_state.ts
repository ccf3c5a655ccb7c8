/**
 * Delivery-day state (docs/pipeline.md, "Day state and staleness"), one KV key per day `["days", <day>]`.
 *
 * `input_version` grows with every accepted change of the day's forecasts. Each step records
 * the input version it consumed; a step is stale when that version is behind the current one,
 * and the reason names what arrived and when (the way Dagster marks an asset stale).
 *
 * Every update is a read-check-commit on the day's key, retried on conflict, and serialised
 * per day inside the process, so the orchestrator and a console step never lose each other's
 * writes.
 * @module
 */
import { deliveryDay } from "../domain/delivery_day.ts";
import { retryKv } from "../store/kv.ts";
import { staleness } from "./staleness.ts";

/** Pipeline steps, in order. */
export const STEPS = ["forecast", "aggregated", "published", "submitted"] as const;
/** A pipeline step of a delivery day. */
export type StepName = typeof STEPS[number];

/** What a step recorded. */
export interface StepRecord {
  /** Input version the step consumed. */
  version: number;
  /** ISO-8601 UTC instant. */
  at: string;
  /** `orchestrator` or the caller's name. */
  by: string;
  /** Step-specific facts (counts, file name, receipt…). */
  detail: Record<string, unknown>;
}

/** The last accepted input change of a day. */
export interface InputChange {
  /** ISO-8601 UTC instant of the change. */
  at: string;
  /** Caller name, or `orchestrator`. */
  by: string;
  /** Number of market locations whose forecast (or master data) changed. */
  market_locations: number;
  /**
   * `customer`: a customer forecast; `generated`: a profile forecast; `master_data`: market
   * locations were added, changed or removed.
   */
  source: "customer" | "generated" | "master_data";
}

/** Stored state of one delivery day. */
export interface DayState {
  delivery_day: string;
  input_version: number;
  last_input: InputChange | null;
  steps: Partial<Record<StepName, StepRecord>>;
}

/** A step as shown in the overview. */
export interface StepView extends StepRecord {
  stale: boolean;
  stale_reason: string | null;
}

/** One entry of `GET /v1/console/delivery-days` (docs/pipeline.md, "Day state and staleness"). */
export interface DayOverview {
  delivery_day: string;
  quarter_hours: number;
  gate_closure: string;
  gate_closure_passed: boolean;
  input_version: number;
  last_input: InputChange | null;
  steps: Record<StepName, StepView | null>;
}

const dayKey = (day: string): Deno.KvKey => ["days", day];
/**
 * The in-process day locks of each store: apps on the same store share them (they share the
 * data), apps on different stores in one process do not.
 */
const locksOfStore = new WeakMap<Deno.Kv, Map<string, Promise<unknown>>>();

/** A fresh state for a day nothing has happened to. */
export function emptyDay(day: string): DayState {
  return { delivery_day: day, input_version: 0, last_input: null, steps: {} };
}

/** Reads a day's state (an empty state when none is stored). */
export async function readDay(kv: Deno.Kv, day: string): Promise<Deno.KvEntryMaybe<DayState>> {
  return await kv.get<DayState>(dayKey(day));
}

/**
 * Runs `fn` with the day's lock held in this process (other processes are kept consistent by
 * the versionstamp checks of {@link updateDay}).
 */
export function withDayLock<T>(kv: Deno.Kv, day: string, fn: () => Promise<T>): Promise<T> {
  let locks = locksOfStore.get(kv);
  if (!locks) locksOfStore.set(kv, locks = new Map());
  const prev = locks.get(day) ?? Promise.resolve();
  const run = prev.catch(() => {}).then(fn);
  const tail = run.catch(() => {});
  locks.set(day, tail);
  tail.then(() => {
    if (locks!.get(day) === tail) locks!.delete(day);
  });
  return run;
}

/**
 * Read-modify-write of a day's state. `mutate` gets the current state (a copy) and returns the
 * new one plus extra mutations to commit in the same atomic, or `null` to write nothing.
 * @throws {KvContentionError} when the key stayed contended through every retry
 */
export function updateDay<T>(
  kv: Deno.Kv,
  day: string,
  mutate: (
    state: DayState,
    entry: Deno.KvEntryMaybe<DayState>,
  ) => Promise<{ state: DayState; extra?: (op: Deno.AtomicOperation) => void; result: T } | null>,
): Promise<T | null> {
  return withDayLock(kv, day, () =>
    retryKv(`update delivery day ${day}`, async () => {
      const entry = await readDay(kv, day);
      const current = structuredClone(entry.value ?? emptyDay(day));
      const out = await mutate(current, entry);
      if (out === null) return { value: null };
      const op = kv.atomic().check(entry).set(dayKey(day), out.state);
      out.extra?.(op);
      const r = await op.commit();
      return r.ok ? { value: out.result } : undefined;
    }).then((r) => r.value));
}

/**
 * Records that `step` consumed `version`. A record never replaces one of a higher version (a
 * slower concurrent run cannot roll the day back).
 */
export function recordStep(
  kv: Deno.Kv,
  day: string,
  step: StepName,
  record: StepRecord,
): Promise<DayState | null> {
  return updateDay(kv, day, (s) => {
    const prev = s.steps[step];
    if (prev && prev.version > record.version) return Promise.resolve(null);
    s.steps[step] = record;
    return Promise.resolve({ state: s, result: s });
  });
}

/** Builds the overview entry of a day: staleness with its reason ({@link staleness}), gate closure. */
export function overview(
  state: DayState,
  nowMs: number,
  gateClosureLocalTime: string,
): DayOverview {
  const d = deliveryDay(state.delivery_day, gateClosureLocalTime);
  const steps = {} as Record<StepName, StepView | null>;
  for (const name of STEPS) {
    const rec = state.steps[name];
    const st = staleness(state, name);
    steps[name] = rec && st ? { ...rec, stale: st.stale, stale_reason: st.reason } : null;
  }
  return {
    delivery_day: state.delivery_day,
    quarter_hours: d.quarterHours.length,
    gate_closure: d.gateClosure.toString(),
    gate_closure_passed: d.gateClosure.epochMilliseconds <= nowMs,
    input_version: state.input_version,
    last_input: state.last_input,
    steps,
  };
}

/** Every stored day state, in date order. */
export async function listDays(kv: Deno.Kv): Promise<DayState[]> {
  const out: DayState[] = [];
  for await (const e of kv.list<DayState>({ prefix: ["days"] })) out.push(e.value);
  return out;
}
