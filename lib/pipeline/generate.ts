/**
 * Forecast generation (docs/pipeline.md, "Forecasts"): for every market location with a
 * standard load profile and no customer forecast for the day, the BDEW profile scaled to its
 * annual energy (see `lib/domain/slp/profile.ts` for the profile rules and clock-change days),
 * rounded to 1 W.
 *
 * A generated forecast is stored as a {@link ProfileForecast} reference (profile, annual kWh,
 * region, shape fingerprint), not as its values: readers compute the values on demand
 * (`forecastValues`, `addForecastTo` in `./forecasts.ts`). Generated forecasts stored with their
 * values by an earlier version are still read, and are left as they are while their values are
 * still right.
 * @module
 */
import {
  InvalidAnnualEnergyError,
  type ProfileCode,
  shapeFingerprint,
} from "../domain/slp/profile.ts";
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
import {
  forecastKey,
  forecastsOfDay,
  generatedValues,
  isProfileForecast,
  type ProfileForecast,
  type StoredForecast,
} from "./forecasts.ts";
import { listMarketLocations, masterDataVersion } from "./market_locations.ts";

/** Outcome of one generation run. */
export interface GenerateResult {
  delivery_day: string;
  /** Locations whose generated forecast was written (new or different). */
  generated: number;
  /** Generated forecasts removed because their location no longer has a profile. */
  removed: number;
  /** Locations whose generated forecast was already current. */
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
 * True when the stored generated forecast `prev` already holds what `next` would. A reference
 * must be the same reference (profile, annual kWh, region and shape fingerprint: a reference
 * made from other profile tables is stale even though reading it now would use the current
 * tables). A forecast stored with its values by an earlier version is current when its values
 * are the ones `next` stands for (so an upgrade does not rewrite, nor bump, anything).
 */
function alreadyCurrent(prev: StoredForecast, next: ProfileForecast, day: string): boolean {
  if (isProfileForecast(prev)) {
    return prev.profile === next.profile && prev.annual_kwh === next.annual_kwh &&
      prev.region === next.region && prev.shape === next.shape;
  }
  const want = generatedValues(next.profile, next.annual_kwh, day, next.region);
  return prev.values.length === want.length && prev.values.every((v, i) => v === want[i]);
}

/**
 * Generates and stores the day's profile forecasts, then records the `forecast` step.
 * When anything changes the day's `input_version` is bumped first (so later steps turn stale
 * even if this run is cut short), then the forecasts are written in batches, each checked
 * against the day state so a customer forecast that arrives meanwhile is never overwritten.
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
      const [locations, existing] = await Promise.all([
        listMarketLocations(kv),
        forecastsOfDay(kv, day),
      ]);
      const at = new Date(opts.nowMs).toISOString();
      // `null`: delete the generated forecast of a location that no longer has a profile.
      const writes: [string, StoredForecast | null][] = [];
      let unchanged = 0, customer = 0, withoutProfile = 0;
      for (const loc of locations) {
        const prev = existing.get(loc.malo_id)?.value;
        if (prev?.source === "customer") {
          customer++;
          continue;
        }
        if (!loc.standard_load_profile || loc.annual_kwh === undefined) {
          withoutProfile++;
          // Its profile was removed: the old generated forecast must not count any more.
          if (prev?.source === "generated") writes.push([loc.malo_id, null]);
          continue;
        }
        const profile: ProfileCode = loc.standard_load_profile;
        const kwh = loc.annual_kwh;
        if (!(kwh >= 0) || kwh === Infinity) throw new InvalidAnnualEnergyError(kwh);
        const next: ProfileForecast = {
          source: "generated",
          profile,
          annual_kwh: kwh,
          region: opts.region,
          shape: shapeFingerprint(profile, day, opts.region),
          received_at: at,
          by: opts.by,
        };
        if (prev && alreadyCurrent(prev, next, day)) {
          unchanged++;
          continue;
        }
        writes.push([loc.malo_id, next]);
      }
      const state = dayEntry.value ?? emptyDay(day);
      let version = state.input_version;
      if (writes.length) {
        const bumped = inputChanged(state, {
          at,
          by: opts.by,
          market_locations: writes.length,
          source: "generated",
        });
        version = bumped.input_version;
        const r = await writeDay(kv.atomic(), dayEntry, bumped).commit();
        if (!r.ok) return undefined;
        // The batches write forecast keys only, so the day's versionstamp stays `r.versionstamp`
        // unless someone else (a customer forecast, another replica) changed the day meanwhile:
        // then the check fails and the whole run reads again.
        const stamp = r.versionstamp;
        for (let i = 0; i < writes.length; i += BATCH) {
          const op = checkDay(kv.atomic(), day, stamp);
          for (const [malo, f] of writes.slice(i, i + BATCH)) {
            if (f) op.set(forecastKey(day, malo), f);
            else op.delete(forecastKey(day, malo));
          }
          const w = await op.commit();
          if (!w.ok) return undefined; // a customer forecast arrived: read again
        }
      }
      const result: GenerateResult = {
        delivery_day: day,
        generated: writes.filter(([, f]) => f !== null).length,
        removed: writes.filter(([, f]) => f === null).length,
        unchanged,
        customer,
        without_profile: withoutProfile,
        input_version: version,
        master_version: master,
      };
      return result;
    })).then(async (result) => {
      await recordStep(kv, day, "forecast", {
        version: result.input_version,
        at: new Date(opts.nowMs).toISOString(),
        by: opts.by,
        detail: { ...result },
      });
      return result;
    });
}
