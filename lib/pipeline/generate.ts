/**
 * Forecast generation (docs/pipeline.md, "Forecasts"): every market location with a standard
 * load profile and no customer forecast for the day is forecast by its BDEW profile scaled to its
 * annual energy (`lib/domain/slp/profile.ts` for the profile rules and clock-change days).
 *
 * Nothing is stored per market location: the profile locations are summed per class (control
 * area, direction, profile; `./profile_classes.ts`), kept up to date with every master-data
 * change, and aggregation multiplies each class's annual energy by the profile's shape
 * (`./open_position.ts`). The step records a digest of what the profile values depend on —
 * region, every class's count and annual energy, the shape fingerprint of every profile used —
 * and bumps the day's `input_version` when it differs from the last run's, so later steps turn
 * stale exactly when the generated values changed.
 *
 * The step reads its inputs once and never starts over (docs/pipeline.md, "Forecasts", the forecast
 * step under steady input): it records the input version it read, committed in a short round on
 * the day state as it is then. Input that arrived while it read leaves the step stale, and the next
 * pass runs it again.
 *
 * Upgrade: generated forecasts stored per location by earlier versions (one record per location
 * and day) are deleted by the day's next forecast step; they are not read any more.
 * @module
 */
import { getManyChunked, maxChecks, retryKv } from "../store/kv.ts";
import { inputChanged, readDay, updateDay } from "./day_state.ts";
import { readDayInputs } from "./day_inputs.ts";
import type { StoredForecast } from "./forecasts.ts";
import { shapeModules } from "./shape_modules.ts";
import { masterDataVersion, profileClasses } from "./master_data.ts";
import { classesOf } from "./profile_classes.ts";
import { readModelsSummary } from "./forecast_models.ts";
import type { LearnedOptions, LearnedResult } from "./learned_refresh.ts";
import type { ForecastStepResult } from "../wire/steps.ts";

/** Outcome of one generation run: the forecast step's answer (`lib/wire/steps.ts`). */
export type GenerateResult = ForecastStepResult;

/** Legacy records deleted per atomic, each checked (at most 100 checks per atomic; see `maxChecks`). */
const BATCH = 100;

/**
 * Runs the forecast step of `day`: counts, the digest of the profile inputs, the bump of the
 * day's input version when the digest changed, the deletion of earlier versions' per-location
 * records; then records the `forecast` step (detail: the result, `region`, `profile_digest`).
 *
 * The inputs are read once; only the commit is retried (one read of the day state and one
 * commit a round, under the day's lock), so a steady stream of input changes cannot make the step
 * start over: it records the version it read (see {@link GenerateResult.input_version}). A
 * record of a later version, written meanwhile by another run, is left as it is.
 * @param region holiday region, e.g. `DE` or `DE-BY`
 * @throws {import("../store/kv.ts").KvContentionError} when the commit's rounds ran out
 */
export async function generateForecasts(
  kv: Deno.Kv,
  day: string,
  opts: {
    by: string;
    nowMs: number;
    region: string;
    /** The horizon and gate closure of the learned forecasts; absent: they are left alone. */
    learned?: Pick<
      LearnedOptions,
      "horizonDays" | "gateClosureLocalTime" | "kvPath" | "replayBudgetMs"
    >;
  },
): Promise<GenerateResult> {
  // The learned forecasts first: a day whose learned forecasts change is bumped, and this step
  // reads its state after that.
  const learnedRun = opts.learned ? await learnedRefresh(kv, day, opts, opts.learned) : null;
  const learned_refresh = learnedRun && (({ per_day: _, ...rest }) => rest)(learnedRun);
  // The day first: whatever changes the inputs after this read also bumps the day (customer
  // forecasts their day, master data every open day), so the version read is never newer than
  // the inputs read after it.
  const consumed = (await readDay(kv, day)).value?.input_version ?? 0;
  const master = await masterDataVersion(kv);
  const inputs = await readDayInputs(kv, day);
  const { profile: { fnv1a, shapeFingerprint }, openPosition: { warmShapes } } =
    await shapeModules();
  await warmShapes(inputs.classes, day, opts.region);
  let profiled = 0, withoutProfile = 0;
  const digestParts: string[] = [opts.region];
  for (const c of inputs.classes) {
    if (!c.profile) {
      withoutProfile += c.count;
      continue;
    }
    profiled += c.count;
    digestParts.push(
      `${c.control_area}|${c.direction}|${c.profile}|${c.count}|${c.wh}|${
        shapeFingerprint(c.profile, day, opts.region)
      }`,
    );
  }
  const count = { customer: 0, learned: 0, customer_corrected: 0 };
  for (const { location, source } of inputs.customers) {
    if (!location) continue;
    count[source]++;
    if (location.standard_load_profile) profiled--;
    else withoutProfile--;
  }
  const digest = fnv1a(new TextEncoder().encode(digestParts.join("\n")));
  const removed = await deleteLegacy(kv, day, inputs.legacy);
  const at = new Date(opts.nowMs).toISOString();
  const base = {
    delivery_day: day,
    removed,
    ...count,
    without_profile: withoutProfile,
    master_version: master,
    learned_refresh,
  };
  const result = await updateDay(kv, day, (state) => {
    const prev = state.steps.forecast;
    const previous = prev?.detail?.profile_digest;
    const changed = digest !== previous && (profiled > 0 || previous !== undefined);
    const next = changed
      ? inputChanged(state, { at, by: opts.by, market_locations: profiled, source: "generated" })
      : state;
    // Nothing arrived since the read: the step consumed the day as it leaves it (its own bump
    // included). Otherwise it consumed the version it read, and is stale from its commit on.
    const version = state.input_version === consumed ? next.input_version : consumed;
    const r: GenerateResult = {
      ...base,
      generated: changed ? profiled : 0,
      unchanged: changed ? 0 : profiled,
      input_version: version,
      day_input_version: next.input_version,
    };
    // A run that read later recorded meanwhile: its record (and digest) stands.
    if (prev && prev.version > version) {
      return Promise.resolve(null);
    }
    next.steps = {
      ...next.steps,
      forecast: {
        version,
        at,
        by: opts.by,
        detail: { ...r, region: opts.region, profile_digest: digest },
      },
    };
    if (next.failures) delete next.failures.forecast; // a success clears the step's failure
    return Promise.resolve({ state: next, result: r });
  });
  return result ?? {
    ...base,
    generated: 0,
    unchanged: profiled,
    input_version: consumed,
    day_input_version: (await readDay(kv, day)).value?.input_version ?? consumed,
  };
}

/**
 * Deletes earlier versions' per-location generated forecasts of `day` (keys as read), each
 * checked: one that a customer forecast replaced meanwhile is kept. Batches of {@link BATCH},
 * fewer where the store allows fewer checks per atomic ({@link maxChecks}: 10 over KV Connect).
 * @returns how many were deleted
 */
async function deleteLegacy(kv: Deno.Kv, day: string, keys: Deno.KvKey[]): Promise<number> {
  let removed = 0;
  const size = Math.min(BATCH, maxChecks(kv));
  for (let i = 0; i < keys.length; i += size) {
    removed += await retryKv(`delete earlier forecasts of ${day}`, async () => {
      const entries = await getManyChunked<StoredForecast>(kv, keys.slice(i, i + size));
      const op = kv.atomic();
      let n = 0;
      for (const e of entries) {
        if (e.value === null || (e.value.source === "customer" && "values" in e.value)) continue;
        op.check(e).delete(e.key);
        n++;
      }
      if (n === 0) return 0;
      return (await op.commit()).ok ? n : undefined;
    });
  }
  return removed;
}

/**
 * Refreshes the learned forecasts of the horizon (`./learned_refresh.ts`, imported at the first
 * use: it loads the model and the holiday calendar) when there is a metered market location, or
 * was one at the last refresh; `null` otherwise (a portfolio of profile locations pays one cached
 * read of the class table).
 */
async function learnedRefresh(
  kv: Deno.Kv,
  day: string,
  opts: { by: string; nowMs: number; region: string },
  learned: Pick<
    LearnedOptions,
    "horizonDays" | "gateClosureLocalTime" | "kvPath" | "replayBudgetMs"
  >,
): Promise<LearnedResult | null> {
  const plain = classesOf((await profileClasses(kv)).table).some((c) => !c.profile);
  if (!plain && !((await readModelsSummary(kv))?.locations)) return null;
  const { refreshLearned } = await import("./learned_refresh.ts");
  return await refreshLearned(kv, { ...opts, ...learned, day });
}
