/**
 * The work of a refresh of the learned forecasts (`./learned_refresh.ts`) on batches of metered
 * market locations: per batch, the fingerprint of each location's inputs (its master data, its
 * weather point's last delivery, its latest three days of actuals, its customer forecasts of the
 * horizon, the horizon), then — for the locations whose fingerprint changed — the full inputs
 * (`./learned_inputs.ts`), the forecasts and model record (`./learned_location.ts`), and their
 * writes. The next batch is asked for and read while the current one is computed, and a batch's
 * writes go on while the next one is computed. Runs in the refresh's thread or in two workers with
 * their own KV handle on the same store, each taking batches until none is left
 * (`./learned_worker.ts`), as the pipeline worker does (docs/architecture.md, "Heavy work off the
 * request thread").
 * @module
 */
import { addDays, deliveryDay } from "../domain/delivery_day.ts";
import { gateClosure } from "../domain/deadlines.ts";
import { fnv1a } from "../domain/slp/profile.ts";
import type { PackedActuals } from "../settlement/actuals_store.ts";
import { type WeatherPointRecord, weatherPointRecords } from "../weather/points.ts";
import {
  addToSummary,
  emptySummaryPart,
  type ForecastModelState,
  readModels,
  type SummaryPart,
  writeModels,
} from "./forecast_models.ts";
import {
  type LearnedForecast,
  learnedForecastsOf,
  type ValuesForecast,
  writeLearnedForecasts,
} from "./forecasts.ts";
import {
  type ByLocationDay,
  dayRange,
  readActuals,
  readCustomerForecasts,
  siteOf,
  WeatherCache,
} from "./learned_inputs.ts";
import { historyDays } from "../forecasting/forecast.ts";
import {
  daysToEvaluate,
  EVALUATION_DAYS,
  forecastLocation,
  SERVICE_LEAD_STEPS,
} from "./learned_location.ts";
import type { MarketLocation } from "./market_location_record.ts";

/** One location of a batch: its master data and its model record as stored (`null`: none). */
interface Part {
  loc: MarketLocation;
  prev: ForecastModelState | null;
}

/** What the batches of one refresh share (plain data: it crosses to the worker). */
export interface ChunkJob {
  /** The cut-off (now), UTC ms. */
  nowMs: number;
  by: string;
  /** The service's holiday region, for a location without its own. */
  region: string;
  gateClosureLocalTime: string;
  /** The cut-off's Berlin day, the horizon's days, the next day whose gate closure is ahead. */
  today: string;
  days: string[];
  next: string;
  /** Wall-clock ms until which past days may be replayed (the replay budget). */
  replayUntil: number;
}

/**
 * Hands out the refresh's locations batch by batch (their model records are read with their
 * batch); `null` when none is left.
 */
export type BatchSource = () => Promise<MarketLocation[] | null>;

/** A {@link BatchSource} of the batches of an array, in order. */
export function batchesOf(batches: readonly MarketLocation[][]): BatchSource {
  let i = 0;
  return () => Promise.resolve(i < batches.length ? batches[i++] : null);
}

/** What the batches did. */
export interface ChunkResult {
  /** What every location's model record (kept or new) adds to the summary. */
  summary: SummaryPart;
  /** Locations fitted and forecast again. */
  computed: number;
  /** Per day: locations whose stored learned forecast changed. */
  changed: Record<string, number>;
}

/**
 * Days of actuals and weather read back before the cut-off's day: as far as the forecast of the
 * horizon's last day reaches (its fit window, then the lags and profile of its lead;
 * `historyDays` of lib/forecasting — 36 days for a horizon of 7), and at least the last 28 days
 * evaluated with the load 7 days before each. A replay of a past day at its gate closure reads 28
 * days more.
 */
export function readBack(job: Pick<ChunkJob, "today" | "days">): number {
  const last = job.days.reduce((a, b) => a > b ? a : b, job.today);
  return Math.max(
    EVALUATION_DAYS + 7,
    historyDays(job.today, last, { leadSteps: SERVICE_LEAD_STEPS }),
  );
}

const startOf = (day: string) => deliveryDay(day).start.epochMilliseconds;

/**
 * Runs every batch `source` hands out, asking for and reading the next one while the current one
 * is computed, and writing a batch's forecasts and model records while the next one is computed
 * (a commit may wait for the store's lock, held by the other worker's; the batches' writes stay
 * in order, one batch's at a time).
 * @throws the first failure of a batch, once the writes of the batch before it are done
 */
export async function runChunks(
  kv: Deno.Kv,
  job: ChunkJob,
  source: BatchSource,
): Promise<ChunkResult> {
  const out: ChunkResult = {
    summary: emptySummaryPart(job.days),
    computed: 0,
    changed: Object.fromEntries(job.days.map((d) => [d, 0])),
  };
  const weather = new WeatherCache(kv);
  const read = async () => {
    const locs = await source();
    return locs ? await prepare(kv, job, locs) : null;
  };
  let next = read();
  let writing: Promise<void> = Promise.resolve();
  try {
    for (let ready = await next; ready; ready = await next) {
      next = read();
      next.catch(() => {}); // awaited in the next round; a failure is thrown there
      const r = await compute(job, weather, ready);
      for (const st of r.states) addToSummary(out.summary, st, job.next);
      out.computed += r.computed;
      for (const [d, n] of Object.entries(r.changed)) out.changed[d] = (out.changed[d] ?? 0) + n;
      await writing;
      writing = write(kv, r.writes, r.computedStates);
      writing.catch(() => {}); // awaited before the next batch's writes or at the end
    }
    await writing;
  } catch (err) {
    // A failure ends the run only once the batch before it is written: nothing of this run is
    // written after it has failed (the caller may release its lock, a worker closes its store).
    await writing.catch(() => {});
    throw err;
  }
  return out;
}

/** A batch read: its fingerprints, and the full inputs of the locations whose inputs changed. */
interface Prepared {
  kept: ForecastModelState[];
  todo: Part[];
  fingerprints: Map<string, string>;
  customers: ByLocationDay<ValuesForecast>;
  actuals: ByLocationDay<PackedActuals>;
  pastCustomer: ByLocationDay<ValuesForecast>;
  evalDays: Map<string, string[]>;
  stored: Map<string, Map<string, LearnedForecast>>;
  replay: boolean;
}

const regionOf = (job: ChunkJob, loc: MarketLocation) => loc.holiday_region ?? job.region;

/** When a point's weather last changed (a repeated delivery changes nothing). */
const changedAt = (p: WeatherPointRecord | undefined) => p?.last_changed_at ?? p?.last_received_at;

async function prepare(kv: Deno.Kv, job: ChunkJob, locs: MarketLocation[]): Promise<Prepared> {
  const { today, days } = job;
  const ids = locs.map((l) => l.malo_id);
  const recent = [addDays(today, -2), addDays(today, -1), today];
  const [prevs, latest, customers, points] = await Promise.all([
    readModels(kv, ids),
    readActuals(kv, ids, recent),
    readCustomerForecasts(kv, ids, days),
    weatherPointRecords(kv, locs.flatMap((l) => l.weather_point ?? [])),
  ]);
  const part: Part[] = locs.map((loc, k) => ({ loc, prev: prevs[k] }));
  // Each stamp with whether it was known at the cut-off (an earlier cut-off, a replay, must not
  // take a later delivery's fit for its own).
  const known = (at: string | undefined) =>
    at === undefined ? null : `${at} ${Date.parse(at) < job.nowMs}`;
  const todo: Part[] = [];
  const kept: ForecastModelState[] = [];
  const fingerprints = new Map<string, string>();
  for (const p of part) {
    const id = p.loc.malo_id;
    const l = p.loc;
    const fp = fnv1a(new TextEncoder().encode(JSON.stringify([
      l.updated_at,
      l.direction,
      l.weather_point ?? null,
      regionOf(job, l),
      l.forecast_method ?? "auto",
      known(l.weather_point ? changedAt(points.get(l.weather_point)) : undefined),
      [...latest.get(id)!].map(([d, r]) => `${d} ${known(r.updated_at)}`),
      [...customers.get(id)!].map(([d, f]) => `${d} ${known(f.received_at)}`),
      days,
    ])));
    fingerprints.set(id, fp);
    if (fp !== p.prev?.fingerprint) todo.push(p);
    else kept.push(p.prev!);
  }
  const todoIds = todo.map((p) => p.loc.malo_id);
  // A location's first refit replays as many of the last 28 days as the budget allows, each
  // reading its own history before it: 28 days more; a later refit replays at most yesterday.
  const replay = Date.now() < job.replayUntil;
  const back = readBack(job) + (replay && todo.some((p) => !p.prev) ? EVALUATION_DAYS : 0);
  const withCustomer = todoIds.filter((id) => customers.get(id)!.size > 0);
  const [older, pastCustomer] = todoIds.length
    ? await Promise.all([
      readActuals(kv, todoIds, dayRange(addDays(today, -back), addDays(today, -3))),
      readCustomerForecasts(kv, withCustomer, dayRange(addDays(today, -60), addDays(today, -1))),
    ])
    : [new Map(), new Map()];
  // With the latest three days read for the fingerprints, in day order.
  const actuals: ByLocationDay<PackedActuals> = new Map(
    todoIds.map((id) => [id, new Map([...older.get(id)!, ...latest.get(id)!])]),
  );
  // Stored learned forecasts: the horizon's (to keep their day-ahead values, and to see what
  // changed) and those of the past days to evaluate.
  const evalDays = new Map(
    todo.map((p) => [p.loc.malo_id, daysToEvaluate(today, actuals.get(p.loc.malo_id)!, p.prev)]),
  );
  // Stored learned forecasts read back: of the days to evaluate, and of the horizon's days whose
  // gate closure passed (their day-ahead values are kept); what changed the records' fingerprints
  // in the model record say.
  const closed = days.filter((d) =>
    gateClosure(deliveryDay(d), job.gateClosureLocalTime)
      .epochMilliseconds <= job.nowMs
  );
  const learnedDays = [...new Set([...closed, ...[...evalDays.values()].flat()])].sort();
  const stored = new Map(todoIds.map((id) => [id, new Map<string, LearnedForecast>()]));
  if (todoIds.length) {
    const got = await Promise.all(learnedDays.map((d) => learnedForecastsOf(kv, d, todoIds)));
    learnedDays.forEach((d, k) => got[k].forEach((f, j) => f && stored.get(todoIds[j])!.set(d, f)));
  }
  return {
    kept,
    todo,
    fingerprints,
    customers,
    actuals,
    pastCustomer,
    evalDays,
    stored,
    replay,
  };
}

/** What a batch's computation wrote: per day the learned forecasts to write, and model records. */
type Writes = Map<string, { malo_id: string; forecast: LearnedForecast | null }[]>;

/** Writes a batch's changed learned forecasts, then its new model records. */
async function write(kv: Deno.Kv, writes: Writes, states: ForecastModelState[]): Promise<void> {
  for (const [day, w] of writes) if (w.length) await writeLearnedForecasts(kv, day, w);
  if (states.length) await writeModels(kv, states);
}

/** Forecasts the changed locations of a prepared batch: what to write, and every model record. */
async function compute(
  job: ChunkJob,
  weatherCache: WeatherCache,
  b: Prepared,
): Promise<{
  states: ForecastModelState[];
  computed: number;
  changed: Record<string, number>;
  writes: Writes;
  /** The model records of the locations computed (the rest are kept as stored). */
  computedStates: ForecastModelState[];
}> {
  const { today, days } = job;
  const gates = new Map<string, number>();
  const gateOf = (day: string) => {
    let ms = gates.get(day);
    if (ms === undefined) {
      gates.set(
        day,
        ms = gateClosure(deliveryDay(day), job.gateClosureLocalTime).epochMilliseconds,
      );
    }
    return ms;
  };
  const endMs = deliveryDay(days.at(-1)!).end.epochMilliseconds;
  const back = readBack(job);
  const fromMs = startOf(addDays(today, -back));
  const yesterday = addDays(today, -1);
  const changed: Record<string, number> = {};
  const states: ForecastModelState[] = [];
  const writes: Writes = new Map(days.map((d) => [d, []]));
  for (const p of b.todo) {
    const id = p.loc.malo_id;
    const point = p.loc.weather_point;
    const weather = point ? await weatherCache.asOf(point, job.nowMs, fromMs, endMs) : [];
    const replays = new Map<string, Awaited<ReturnType<WeatherCache["asOf"]>>>();
    // Replayed: the days without a day-ahead learned forecast — at a location's first refit as
    // many as the budget allows (the days before the service forecast it), later only yesterday
    // (the service did not run before its gate closure).
    for (const day of b.evalDays.get(id)!) {
      const rec = b.stored.get(id)!.get(day);
      if (rec && rec.method !== "customer_corrected") continue; // its day-ahead values are kept
      if (p.prev && day !== yesterday) continue;
      if (!b.replay || Date.now() >= job.replayUntil) break;
      // The weather a replay of `day` reads: the window before it and the day itself.
      const from = startOf(addDays(day, -back)), to = deliveryDay(day).end.epochMilliseconds;
      replays.set(day, point ? await weatherCache.asOf(point, gateOf(day), from, to, false) : []);
    }
    const region = regionOf(job, p.loc);
    const o = forecastLocation({
      location: p.loc,
      region,
      site: siteOf(point, region),
      cutoffMs: job.nowMs,
      days,
      nextDay: job.next,
      gateOf,
      actuals: b.actuals.get(id)!,
      customer: new Map([...b.pastCustomer.get(id) ?? [], ...b.customers.get(id)!]),
      learned: b.stored.get(id)!,
      weather,
      replays,
      previous: p.prev,
      fingerprint: b.fingerprints.get(id)!,
      by: job.by,
    });
    states.push(o.state);
    for (const day of days) {
      const next = o.records.get(day) ?? null;
      const was = p.prev?.days[day]?.hash;
      const now = o.state.days[day].hash ?? null;
      if (was === now && was !== undefined) continue; // the same forecast is stored
      writes.get(day)!.push({ malo_id: id, forecast: next });
      if (next || was) changed[day] = (changed[day] ?? 0) + 1;
    }
  }
  return {
    states: [...b.kept, ...states],
    computed: b.todo.length,
    changed,
    writes,
    computedStates: states,
  };
}
