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
import { retryKv, withStoreLock } from "../store/kv.ts";
import { KEYS } from "../store/keys.ts";
import type {
  DayOverview,
  InputChange,
  StepFailure,
  StepRecord,
  StepView,
} from "../wire/delivery_days.ts";
import { type MissingEnergy, missingEnergyShare } from "./missing_energy_share.ts";
import { staleness } from "./staleness.ts";

export type {
  DayOverview,
  InputChange,
  StepFailure,
  StepRecord,
  StepView,
} from "../wire/delivery_days.ts";

export { type StepName, STEPS } from "./step_table.ts";
import type { StepName } from "./step_table.ts";
import { STEPS } from "./step_table.ts";

/** Stored state of one delivery day. */
export interface DayState {
  delivery_day: string;
  input_version: number;
  last_input: InputChange | null;
  steps: Partial<Record<StepName, StepRecord>>;
  /** Per step, the last failed attempt since its last success (cleared by the next success). */
  failures?: Partial<Record<StepName, StepFailure>>;
  /**
   * How many of the input changes came from outside the forecast step (every source but
   * `generated`): the learned forecasts are made again only when this moved on a day of their
   * horizon (`./learned_refresh.ts`), not for their own changes. Absent: 0.
   */
  external_version?: number;
}

/**
 * The input-changed rule, in one place: a day's forecasts or master data changed, so its
 * `input_version` goes up by one and `last_input` says what arrived; every step that consumed an
 * older version is stale from now on (docs/pipeline.md, "Day state and staleness").
 * @returns a new state; `state` is not changed
 */
export function inputChanged(state: DayState, change: InputChange): DayState {
  const external = (state.external_version ?? 0) + (change.source === "generated" ? 0 : 1);
  return {
    ...state,
    input_version: state.input_version + 1,
    last_input: change,
    external_version: external,
  };
}

/**
 * Adds the write of a day's new state to `op`, checked against the entry it was read from: the
 * only way a day state is written, so a concurrent change always fails the commit.
 * @returns `op`, for chaining
 */
export function writeDay(
  op: Deno.AtomicOperation,
  entry: Deno.KvEntryMaybe<DayState>,
  state: DayState,
): Deno.AtomicOperation {
  return op.check({ key: KEYS.day(state.delivery_day), versionstamp: entry.versionstamp })
    .set(KEYS.day(state.delivery_day), state);
}

/**
 * Adds a check that the day state is still at `versionstamp` to `op` (writes that must not
 * land once the day changed, e.g. forecast batches after the day was bumped).
 * @returns `op`, for chaining
 */
export function checkDay(
  op: Deno.AtomicOperation,
  day: string,
  versionstamp: string | null,
): Deno.AtomicOperation {
  return op.check({ key: KEYS.day(day), versionstamp });
}

/** A fresh state for a day nothing has happened to. */
export function emptyDay(day: string): DayState {
  return { delivery_day: day, input_version: 0, last_input: null, steps: {} };
}

/** Reads a day's state (an empty state when none is stored). */
export async function readDay(kv: Deno.Kv, day: string): Promise<Deno.KvEntryMaybe<DayState>> {
  return await kv.get<DayState>(KEYS.day(day));
}

/**
 * Runs `fn` with the day's lock held in this process (other processes are kept consistent by
 * the versionstamp checks of {@link updateDay}).
 */
export function withDayLock<T>(kv: Deno.Kv, day: string, fn: () => Promise<T>): Promise<T> {
  return withStoreLock(kv, `day ${day}`, fn);
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
      const op = writeDay(kv.atomic(), entry, out.state);
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
    if (s.failures) delete s.failures[step]; // a success clears the step's failure
    return Promise.resolve({ state: s, result: s });
  });
}

/**
 * Records a failed attempt of `step`: its time, what went wrong and when the next attempt is
 * due; the count of attempts since the last success grows by one. Kept in the day state, so it
 * survives restarts and every replica shows it (docs/pipeline.md, "Day state and staleness").
 * @param failure `at` and `next_attempt_at` ISO-8601 UTC; `message` already redacted
 */
export function recordFailure(
  kv: Deno.Kv,
  day: string,
  step: StepName,
  failure: Omit<StepFailure, "attempts">,
): Promise<StepFailure | null> {
  return updateDay(kv, day, (s) => {
    const attempts = (s.failures?.[step]?.attempts ?? 0) + 1;
    const next: StepFailure = { ...failure, attempts };
    s.failures = { ...s.failures, [step]: next };
    return Promise.resolve({ state: s, result: next });
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
  const warnings = coverageWarnings(state.steps.aggregated?.detail);
  const failures = {} as Record<StepName, StepFailure | null>;
  for (const name of STEPS) {
    // A failure recorded by a slower run after the step's success is not shown.
    const f = state.failures?.[name];
    const rec = state.steps[name];
    failures[name] = f && !(rec && rec.at >= f.at) ? f : null;
  }
  return {
    delivery_day: state.delivery_day,
    quarter_hours: d.quarterHours.length,
    gate_closure: d.gateClosure.toString(),
    gate_closure_passed: d.gateClosure.epochMilliseconds <= nowMs,
    input_version: state.input_version,
    last_input: state.last_input,
    steps,
    totals: (state.steps.aggregated?.detail?.totals ?? {}) as DayOverview["totals"],
    schedules: [],
    warnings,
    failures,
  };
}

/** Every stored day state, in date order. */
export async function listDays(kv: Deno.Kv): Promise<DayState[]> {
  const out: DayState[] = [];
  for await (const e of kv.list<DayState>({ prefix: KEYS.days })) out.push(e.value);
  return out;
}

/**
 * The completeness warning of a day from its latest aggregate's counts: market locations (in
 * active control areas) without any forecast, their share of the day's market locations, and the
 * share of the day's expected energy that lies with them (docs/console_attention.md, "Missing forecasts
 * by energy"; `null` with every location counted unknown for an aggregate from before it).
 */
export function coverageWarnings(
  detail: Record<string, unknown> | undefined,
): DayOverview["warnings"] {
  const missing = Number(detail?.missing_forecast ?? 0);
  const withForecast = Number(detail?.market_locations ?? 0);
  if (!(missing > 0)) return [];
  const energy = detail?.missing_energy as MissingEnergy | undefined;
  return [{
    code: "missing_forecasts",
    market_locations: missing,
    share: Math.round((missing / (missing + withForecast)) * 10_000) / 10_000,
    energy_share: energy ? missingEnergyShare(energy, missing) : null,
    missing_mwh: energy?.missing_mwh ?? null,
    expected_mwh: energy?.expected_mwh ?? null,
    energy_unknown_locations: energy?.unknown_locations ?? missing,
  }];
}
