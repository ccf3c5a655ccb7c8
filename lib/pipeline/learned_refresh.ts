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
import { addDays, deliveryDay, localDayOf, nextOpenDay } from "../domain/delivery_day.ts";
import { gateClosure } from "../domain/deadlines.ts";
import { fnv1a } from "../domain/slp/profile.ts";
import { getManyChunked, withStoreLock } from "../store/kv.ts";
import { KEYS } from "../store/keys.ts";
import { weatherPointRecords } from "../weather/points.ts";
import { type DayState, inputChanged, updateDay } from "./day_state.ts";
import {
  type DayMethod,
  type ForecastIssue,
  type ForecastModelsSummary,
  type ForecastModelState,
  listModels,
  readModelsSummary,
  writeModels,
  writeModelsSummary,
} from "./forecast_models.ts";
import { type LearnedForecast, learnedForecastsOf, writeLearnedForecasts } from "./forecasts.ts";
import {
  dayRange,
  readActuals,
  readCustomerForecasts,
  siteOf,
  WeatherCache,
} from "./learned_inputs.ts";
import {
  daysToEvaluate,
  EVALUATION_DAYS,
  forecastLocation,
  ISSUE_RANK,
  sameForecast,
} from "./learned_location.ts";
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
const CHUNK = 250;
/** Actuals read back for a forecast: the window (21 days), the weekly lags, the last 28 days' baseline. */
const READ_BACK = 40;
/** … and for replaying past days at their gate closure: 28 days more. */
const READ_BACK_REPLAY = READ_BACK + EVALUATION_DAYS;
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
  const models = new Map((await listModels(kv)).map((m) => [m.malo_id, m]));
  const metered = await meteredLocations(kv, master, summary, models);
  const removed = [...models.keys()].filter((id) => !metered.has(id));
  const gateOf = (day: string) => gateClosure(deliveryDay(day), gc).epochMilliseconds;
  const run: Run = {
    kv,
    opts,
    today,
    days,
    next,
    gateOf,
    weather: new WeatherCache(
      kv,
      deliveryDay(addDays(today, -READ_BACK_REPLAY - 1)).start.epochMilliseconds,
      deliveryDay(days.at(-1)!).end.epochMilliseconds,
    ),
    replayUntil: Date.now() + REPLAY_BUDGET_MS,
    changed: new Map(days.map((d) => [d, 0])),
  };
  const ids = [...metered.keys()].sort();
  const out: ForecastModelState[] = [];
  let computed = 0;
  for (let i = 0; i < ids.length; i += CHUNK) {
    const part = ids.slice(i, i + CHUNK).map((id) => ({
      loc: metered.get(id)!,
      prev: models.get(id) ?? null,
    }));
    const r = await refreshChunk(run, part);
    computed += r.computed;
    out.push(...r.states);
  }
  if (removed.length) {
    await writeModels(kv, [], removed);
    for (const day of days) {
      await writeLearnedForecasts(kv, day, removed.map((malo_id) => ({ malo_id, forecast: null })));
    }
  }
  const changedDays = [...run.changed].filter(([, n]) => n > 0).map(([d]) => d);
  for (const day of changedDays) {
    const at = new Date(opts.nowMs).toISOString();
    const n = run.changed.get(day)!;
    await updateDay(kv, day, (s) =>
      Promise.resolve({
        state: inputChanged(s, { at, by: opts.by, market_locations: n, source: "generated" }),
        result: null,
      }));
  }
  const made = summaryOf(out, { stamp, master, days, next, at: opts.nowMs });
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

/** What the chunks of one refresh share. */
interface Run {
  kv: Deno.Kv;
  opts: LearnedOptions;
  today: string;
  days: string[];
  next: string;
  gateOf: (day: string) => number;
  weather: WeatherCache;
  /** Wall-clock ms until which past days may be replayed. */
  replayUntil: number;
  /** Per day: locations whose stored learned forecast changed. */
  changed: Map<string, number>;
}

/**
 * The metered market locations (no standard load profile) by MaLo-ID: none when the class table
 * has no location without a profile; the model records' copies while the master data is the one
 * the last refresh read; else every market location is listed once.
 */
async function meteredLocations(
  kv: Deno.Kv,
  master: number,
  summary: ForecastModelsSummary | null,
  models: Map<string, ForecastModelState>,
): Promise<Map<string, MarketLocation>> {
  const plain = classesOf((await readClassTable(kv)).table).filter((c) => !c.profile)
    .reduce((n, c) => n + c.count, 0);
  const out = new Map<string, MarketLocation>();
  if (plain === 0) return out;
  if (summary?.master_version === master && models.size === plain) {
    for (const [id, m] of models) {
      out.set(id, { malo_id: id, ...m.location } as MarketLocation);
    }
    return out;
  }
  for (const loc of await listMarketLocations(kv)) {
    if (!loc.standard_load_profile) out.set(loc.malo_id, loc);
  }
  return out;
}

/** Fingerprints a chunk, and computes and stores the locations whose inputs changed. */
async function refreshChunk(
  run: Run,
  part: { loc: MarketLocation; prev: ForecastModelState | null }[],
): Promise<{ states: ForecastModelState[]; computed: number }> {
  const { kv, opts, today, days } = run;
  const ids = part.map((p) => p.loc.malo_id);
  const recent = [addDays(today, -2), addDays(today, -1), today];
  const [latest, customers, points] = await Promise.all([
    readActuals(kv, ids, recent),
    readCustomerForecasts(kv, ids, days),
    weatherPointRecords(kv, part.flatMap((p) => p.loc.weather_point ?? [])),
  ]);
  const regionOf = (loc: MarketLocation) => loc.holiday_region ?? opts.region;
  const known = (at: string | undefined) =>
    at === undefined ? null : `${at} ${Date.parse(at) < opts.nowMs}`;
  const todo: typeof part = [];
  const fingerprints = new Map<string, string>();
  for (const p of part) {
    const id = p.loc.malo_id;
    const l = p.loc;
    const fp = fnv1a(new TextEncoder().encode(JSON.stringify([
      l.updated_at,
      l.direction,
      l.weather_point ?? null,
      regionOf(l),
      l.forecast_method ?? "auto",
      // Each stamp with whether it was known at the cut-off (an earlier cut-off, a replay,
      // must not take a later delivery's fit for its own).
      known(l.weather_point ? points.get(l.weather_point)?.last_received_at : undefined),
      [...latest.get(id)!].map(([d, r]) => `${d} ${known(r.updated_at)}`),
      [...customers.get(id)!].map(([d, f]) => `${d} ${known(f.received_at)}`),
      days,
    ])));
    fingerprints.set(id, fp);
    if (fp !== p.prev?.fingerprint) todo.push(p);
  }
  const states = part.filter((p) => !todo.includes(p)).map((p) => p.prev!);
  if (!todo.length) return { states, computed: 0 };
  const todoIds = todo.map((p) => p.loc.malo_id);
  const replay = Date.now() < run.replayUntil;
  const back = replay ? READ_BACK_REPLAY : READ_BACK;
  const withCustomer = todoIds.filter((id) => customers.get(id)!.size > 0);
  const [actuals, pastCustomer] = await Promise.all([
    readActuals(kv, todoIds, dayRange(addDays(today, -back), today)),
    readCustomerForecasts(kv, withCustomer, dayRange(addDays(today, -60), addDays(today, -1))),
  ]);
  // Stored learned forecasts: the horizon's (to keep their day-ahead values, and to see what
  // changed) and those of the past days to evaluate.
  const evalDays = new Map(
    todo.map((p) => [p.loc.malo_id, daysToEvaluate(today, actuals.get(p.loc.malo_id)!, p.prev)]),
  );
  const learnedDays = [...new Set([...days, ...[...evalDays.values()].flat()])].sort();
  const stored = new Map(todoIds.map((id) => [id, new Map<string, LearnedForecast>()]));
  for (const day of learnedDays) {
    const got = await learnedForecastsOf(kv, day, todoIds);
    got.forEach((f, j) => f && stored.get(todoIds[j])!.set(day, f));
  }
  const writes = new Map(
    days.map((d) => [d, [] as { malo_id: string; forecast: LearnedForecast | null }[]]),
  );
  for (const p of todo) {
    const id = p.loc.malo_id;
    const point = p.loc.weather_point;
    const weather = point ? await run.weather.asOf(point, opts.nowMs) : [];
    const replays = new Map<string, Awaited<ReturnType<WeatherCache["asOf"]>>>();
    for (const day of evalDays.get(id)!) {
      const rec = stored.get(id)!.get(day);
      if (rec && rec.method !== "customer_corrected") continue; // its day-ahead values are kept
      if (!replay || Date.now() >= run.replayUntil) break;
      replays.set(day, point ? await run.weather.asOf(point, run.gateOf(day)) : []);
    }
    const customer = new Map([...pastCustomer.get(id) ?? [], ...customers.get(id)!]);
    const o = forecastLocation({
      location: p.loc,
      region: regionOf(p.loc),
      site: siteOf(point, regionOf(p.loc)),
      cutoffMs: opts.nowMs,
      days,
      nextDay: run.next,
      gateOf: run.gateOf,
      actuals: actuals.get(id)!,
      customer,
      learned: stored.get(id)!,
      weather,
      replays,
      previous: p.prev,
      fingerprint: fingerprints.get(id)!,
      by: opts.by,
    });
    states.push(o.state);
    for (const day of days) {
      const next = o.records.get(day) ?? null;
      if (sameForecast(stored.get(id)!.get(day) ?? null, next)) continue;
      writes.get(day)!.push({ malo_id: id, forecast: next });
      run.changed.set(day, (run.changed.get(day) ?? 0) + 1);
    }
  }
  for (const [day, w] of writes) if (w.length) await writeLearnedForecasts(kv, day, w);
  await writeModels(kv, states.slice(states.length - todo.length));
  return { states, computed: todo.length };
}

/** Methods whose day has a stored learned forecast. */
const STORED: ReadonlySet<DayMethod> = new Set([
  "learned",
  "learned_without_weather",
  "load_7_days_before",
  "customer_corrected",
]);

/** The summary of a refresh's model records. */
function summaryOf(
  states: ForecastModelState[],
  s: { stamp: string; master: number; days: string[]; next: string; at: number },
): ForecastModelsSummary {
  const byMethod: ForecastModelsSummary["by_method"] = {};
  const perDay: Record<string, number> = Object.fromEntries(s.days.map((d) => [d, 0]));
  const issues: ForecastIssue[] = [];
  const issueCount: ForecastModelsSummary["issue_count"] = {};
  const points: Record<string, number> = {};
  for (const st of states) {
    const wp = st.location.weather_point;
    if (wp) points[wp] = (points[wp] ?? 0) + 1;
    for (const [day, d] of Object.entries(st.days)) {
      if (STORED.has(d.method) && day in perDay) perDay[day]++;
    }
    const d = st.days[s.next];
    if (!d) continue;
    byMethod[d.method] = (byMethod[d.method] ?? 0) + 1;
    if (ISSUE_RANK[d.method] !== undefined) {
      issueCount[d.method] = (issueCount[d.method] ?? 0) + 1;
      issues.push({
        malo_id: st.malo_id,
        name: st.location.name ?? null,
        method: d.method,
        reason: d.reason,
        day: s.next,
      });
    }
  }
  issues.sort((a, b) =>
    ISSUE_RANK[a.method]! - ISSUE_RANK[b.method]! || a.malo_id.localeCompare(b.malo_id)
  );
  return {
    refreshed_at: new Date(s.at).toISOString(),
    stamp: s.stamp,
    master_version: s.master,
    days: s.days,
    next_day: s.next,
    locations: states.length,
    by_method: byMethod,
    per_day: perDay,
    issues: issues.slice(0, 50),
    issue_count: issueCount,
    points,
  };
}
