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
 * Upgrade: generated forecasts stored per location by earlier versions (one record per location
 * and day) are deleted by the day's next forecast step; they are not read any more.
 * @module
 */
import { fnv1a, shapeFingerprint } from "../domain/slp/profile.ts";
import { retryKv } from "../store/kv.ts";
import {
  checkDay,
  emptyDay,
  inputChanged,
  readDay,
  recordStep,
  withDayLock,
  writeDay,
} from "./day_state.ts";
import { readDayInputs } from "./day_inputs.ts";
import { warmShapes } from "./open_position.ts";
import { masterDataVersion } from "./master_data.ts";

/** Outcome of one generation run. */
export interface GenerateResult {
  delivery_day: string;
  /** Profile locations whose generated values changed with this run (all of them, or none). */
  generated: number;
  /** Generated forecasts stored per location by an earlier version, deleted. */
  removed: number;
  /** Profile locations whose generated values were already current. */
  unchanged: number;
  /** Locations skipped because the customer sent a forecast. */
  customer: number;
  /** Locations without a profile (they need a customer forecast). */
  without_profile: number;
  input_version: number;
  /** Master-data version the run saw (the orchestrator re-runs generation when it moves). */
  master_version: number;
}

const BATCH = 400;

/**
 * Runs the forecast step of `day`: counts, the digest of the profile inputs, the bump of the
 * day's input version when the digest changed, the deletion of earlier versions' per-location
 * records; then records the `forecast` step (detail: the result, `region`, `profile_digest`).
 * @param region holiday region, e.g. `DE` or `DE-BY`
 */
export function generateForecasts(
  kv: Deno.Kv,
  day: string,
  opts: { by: string; nowMs: number; region: string },
): Promise<GenerateResult> {
  return withDayLock(kv, day, () =>
    retryKv(`generate forecasts for ${day}`, async () => {
      const dayEntry = await readDay(kv, day);
      const master = await masterDataVersion(kv);
      const inputs = await readDayInputs(kv, day);
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
      let customer = 0;
      for (const { location } of inputs.customers) {
        if (!location) continue;
        customer++;
        if (location.standard_load_profile) profiled--;
        else withoutProfile--;
      }
      const digest = fnv1a(new TextEncoder().encode(digestParts.join("\n")));
      const state = dayEntry.value ?? emptyDay(day);
      const previous = state.steps.forecast?.detail?.profile_digest;
      const changed = digest !== previous && (profiled > 0 || previous !== undefined);
      const at = new Date(opts.nowMs).toISOString();
      let version = state.input_version;
      if (changed || inputs.legacy.length) {
        const next = changed
          ? inputChanged(state, {
            at,
            by: opts.by,
            market_locations: profiled,
            source: "generated",
          })
          : state;
        version = next.input_version;
        const r = await writeDay(kv.atomic(), dayEntry, next).commit();
        if (!r.ok) return undefined;
        // Earlier versions' per-location records, in batches checked against the day state: a
        // customer forecast arriving meanwhile makes the whole run read again.
        for (let i = 0; i < inputs.legacy.length; i += BATCH) {
          const op = checkDay(kv.atomic(), day, r.versionstamp);
          for (const k of inputs.legacy.slice(i, i + BATCH)) op.delete(k);
          if (!(await op.commit()).ok) return undefined;
        }
      }
      return {
        result: {
          delivery_day: day,
          generated: changed ? profiled : 0,
          removed: inputs.legacy.length,
          unchanged: changed ? 0 : profiled,
          customer,
          without_profile: withoutProfile,
          input_version: version,
          master_version: master,
        } satisfies GenerateResult,
        digest,
      };
    })).then(async ({ result, digest }) => {
      await recordStep(kv, day, "forecast", {
        version: result.input_version,
        at: new Date(opts.nowMs).toISOString(),
        by: opts.by,
        detail: { ...result, region: opts.region, profile_digest: digest },
      });
      return result;
    });
}
