/**
 * The learned forecasts in the forecast step (docs/forecasting.md, "In the service"): for every
 * metered market location (no standard load profile) and every day of the horizon — today up to
 * `orchestrator_horizon_days` ahead — the forecast its `forecast_method` calls for
 * (`./learned_location.ts`), stored as learned forecasts (`./forecasts.ts`) beside the customer's,
 * with the location's model record and a summary (`./forecast_models.ts`).
 *
 * Work is skipped at two levels. The refresh as a whole runs only when something it reads may
 * have changed: its stamp — the cut-off's day, the horizon, the master-data version and each
 * horizon day's `external_version` (every input change but the forecast step's own: customer
 * forecasts, master data, actuals and weather that learned forecasts read) — differs from the last
 * run's. Then each location is fitted again only when its own inputs changed: the fingerprint of
 * its master data, its weather point's last delivery, its latest three days of actuals, its
 * customer forecasts of the horizon and the horizon's days. A weather delivery for one point thus
 * costs one read of each location's small records, and fits only the locations of that point.
 *
 * Days whose stored learned forecasts changed get their `input_version` bumped (source
 * `generated`), so their aggregate, file and schedules follow.
 * @module
 */
import { addDays, localDayOf, nextOpenDay } from "../domain/delivery_day.ts";
import { fnv1a } from "../domain/slp/profile.ts";
import { getManyChunked, withStoreLock } from "../store/kv.ts";
import { KEYS } from "../store/keys.ts";
import { type DayState, inputChanged, updateDay } from "./day_state.ts";
import {
  emptySummaryPart,
  finishSummary,
  type ForecastModelsSummary,
  type ForecastModelState,
  mergeSummaryParts,
  modelLocations,
  readModelsSummary,
  writeModels,
  writeModelsSummary,
} from "./forecast_models.ts";
import { writeLearnedForecasts } from "./forecasts.ts";
import {
  batchesOf,
  type BatchSource,
  type ChunkJob,
  type ChunkResult,
  runChunks,
} from "./learned_chunks.ts";
import { dayRange } from "./learned_inputs.ts";
import type { MarketLocation } from "./market_location_record.ts";
import { listMarketLocations } from "./market_locations.ts";
import { masterDataVersion } from "./master_data.ts";
import { classesOf, readClassTable } from "./profile_classes.ts";

/** What a refresh needs. */
export interface LearnedOptions {
  /** The cut-off, UTC ms: the service clock's now. */
  nowMs: number;
  by: string;
  /** Days after today in the horizon (`orchestrator_horizon_days`). */
  horizonDays: number;
  gateClosureLocalTime: string;
  /** The service's holiday region (`holiday_region`), for a location without its own. */
  region: string;
  /** A day asked for outside the horizon (a forecast step by hand), forecast too. */
  day?: string;
  /**
   * The store's file, when it is a local one a second handle can open: the locations are then
   * refitted in two workers (`./learned_worker.ts`), on both cores.
   */
  kvPath?: string;
  /**
   * Wall-clock time (ms) a refresh may spend replaying past days for the locations' last-28-days
   * errors (default 3,000); 0 replays none (tests of the daily path).
   */
  replayBudgetMs?: number;
}

/** What a refresh did. */
export interface LearnedResult {
  /** False when nothing it reads changed since the last one (nothing done). */
  ran: boolean;
  /** Metered locations. */
  metered: number;
  /** Locations whose inputs changed: fitted and forecast again. */
  computed: number;
  /** Locations left as they were. */
  unchanged: number;
  /** Model records of locations no longer metered, deleted. */
  removed: number;
  /** Per day: locations with a stored learned forecast. */
  per_day: Record<string, number>;
  /** Days whose learned forecasts changed (their input version was bumped). */
  changed_days: string[];
}

/** Locations read and computed together. */
const CHUNK = 150;
/** Workers: the machine's two cores. */
const THREADS = 2;

/** Wall time a refresh spends replaying past days for the 28-day errors (the rest come later). */
const REPLAY_BUDGET_MS = 3_000;

/**
 * Refreshes the learned forecasts of the horizon (see the module doc). Serialised per store in
 * this process (a pass and a forecast step by hand do not both do it).
 */
export function refreshLearned(kv: Deno.Kv, opts: LearnedOptions): Promise<LearnedResult> {
  return withStoreLock(kv, "learned forecasts", () => refresh(kv, opts));
}

async function refresh(kv: Deno.Kv, opts: LearnedOptions): Promise<LearnedResult> {
  const today = localDayOf(opts.nowMs);
  const gc = opts.gateClosureLocalTime;
  const next = nextOpenDay(opts.nowMs, gc);
  const days = [
    ...new Set([
      ...dayRange(today, addDays(today, opts.horizonDays)),
      next,
      ...(
        opts.day && opts.day >= today ? [opts.day] : []
      ),
    ]),
  ].sort();
  const master = await masterDataVersion(kv);
  const states = await getManyChunked<DayState>(kv, days.map((d) => KEYS.day(d)));
  const stamp = fnv1a(new TextEncoder().encode(JSON.stringify([
    today,
    days,
    master,
    states.map((e) => e.value?.external_version ?? 0),
  ])));
  const summary = await readModelsSummary(kv);
  const nothing = { metered: 0, computed: 0, unchanged: 0, removed: 0, changed_days: [] };
  if (summary?.stamp === stamp) {
    return { ran: false, ...nothing, metered: summary.locations, per_day: summary.per_day };
  }
  const known = await modelLocations(kv);
  const metered = await meteredLocations(kv, master, summary, known);
  const removed = [...known.keys()].filter((id) => !metered.has(id));
  known.clear();
  const ids = [...metered.keys()].sort();
  const batches: MarketLocation[][] = [];
  for (let i = 0; i < ids.length; i += CHUNK) {
    batches.push(ids.slice(i, i + CHUNK).map((id) => metered.get(id)!));
  }
  metered.clear();
  const replayUntil = Date.now() + (opts.replayBudgetMs ?? REPLAY_BUDGET_MS);
  const job: ChunkJob = {
    nowMs: opts.nowMs,
    by: opts.by,
    region: opts.region,
    gateClosureLocalTime: gc,
    today,
    days,
    next,
    replayUntil,
  };
  // Where the store is a local file a second handle opens, the batches go to two workers, each
  // asking for the next batch when it starts on one (a worker that meets the quicker batches
  // takes more); else they run in this thread. Once one fails, the other is given no more, and the
  // refresh fails with the first failure only when both have stopped: nothing of it is written
  // after it failed (a later refresh's records are never overwritten by this one's).
  const all = batchesOf(batches);
  let failure: { err: unknown } | null = null;
  const source: BatchSource = () => failure ? Promise.resolve(null) : all();
  let results: ChunkResult[];
  if (opts.kvPath && batches.length > 1) {
    const settled = await Promise.allSettled(
      Array.from({ length: THREADS }, () =>
        inWorker(opts.kvPath!, job, source).catch((err) => {
          failure ??= { err };
          throw err;
        })),
    );
    if (failure) throw (failure as { err: unknown }).err;
    results = settled.map((s) => (s as PromiseFulfilledResult<ChunkResult>).value);
  } else results = [await runChunks(kv, job, source)];
  const part = results.map((r) => r.summary)
    .reduce((x, y) => mergeSummaryParts(x, y), emptySummaryPart(days));
  const computed = results.reduce((n, r) => n + r.computed, 0);
  const changed = new Map(days.map((d) => [d, 0]));
  for (const r of results) {
    for (const [d, n] of Object.entries(r.changed)) changed.set(d, (changed.get(d) ?? 0) + n);
  }
  if (removed.length) {
    await writeModels(kv, [], removed);
    for (const day of days) {
      await writeLearnedForecasts(kv, day, removed.map((malo_id) => ({ malo_id, forecast: null })));
    }
  }
  const changedDays = [...changed].filter(([, n]) => n > 0).map(([d]) => d);
  for (const day of changedDays) {
    const at = new Date(opts.nowMs).toISOString();
    const n = changed.get(day)!;
    await updateDay(kv, day, (s) =>
      Promise.resolve({
        state: inputChanged(s, { at, by: opts.by, market_locations: n, source: "generated" }),
        result: null,
      }));
  }
  const made = finishSummary(part, { stamp, master, days, next, at: opts.nowMs });
  await writeModelsSummary(kv, made);
  return {
    ran: true,
    metered: ids.length,
    computed,
    unchanged: ids.length - computed,
    removed: removed.length,
    per_day: made.per_day,
    changed_days: changedDays,
  };
}

/**
 * The metered market locations (no standard load profile) by MaLo-ID: none when the class table
 * has no location without a profile; the model records' copies of their master data while the
 * master data is the one the last refresh read; else every market location is listed once.
 */
async function meteredLocations(
  kv: Deno.Kv,
  master: number,
  summary: ForecastModelsSummary | null,
  known: Map<string, ForecastModelState["location"]>,
): Promise<Map<string, MarketLocation>> {
  const plain = classesOf((await readClassTable(kv)).table).filter((c) => !c.profile)
    .reduce((n, c) => n + c.count, 0);
  const out = new Map<string, MarketLocation>();
  if (plain === 0) return out;
  if (summary?.master_version === master && known.size === plain) {
    for (const [id, location] of known) {
      out.set(id, { malo_id: id, ...location } as MarketLocation);
    }
    return out;
  }
  for (const loc of await listMarketLocations(kv)) {
    if (!loc.standard_load_profile) out.set(loc.malo_id, loc);
  }
  return out;
}

/**
 * Runs `job` in a worker with its own KV handle on `kvPath` (`./learned_worker.ts`) on the batches
 * `source` hands it as it asks for them, stopped when done.
 * @throws the worker's failure, as an `Error` with its name and message
 */
function inWorker(kvPath: string, job: ChunkJob, source: BatchSource): Promise<ChunkResult> {
  const worker = new Worker(new URL("./learned_worker.ts", import.meta.url).href, {
    type: "module",
  });
  const { promise, resolve, reject } = Promise.withResolvers<ChunkResult>();
  worker.onmessage = (e: MessageEvent) => {
    if (e.data.next) {
      source().then((batch) => worker.postMessage({ batch }), reject);
      return;
    }
    if (e.data.ok) resolve(e.data.result);
    else reject(Object.assign(new Error(e.data.error.message), { name: e.data.error.name }));
  };
  worker.onerror = (e: ErrorEvent) => {
    e.preventDefault();
    reject(new Error(`the learned forecasts' worker stopped: ${e.message}`));
  };
  worker.postMessage({ kvPath, job });
  return promise.finally(() => worker.terminate());
}
