/**
 * Forecast generation (DESIGN §8, process step "forecast"): for every market location with a
 * standard load profile and no customer forecast for the day, the BDEW profile scaled to its
 * annual energy (see `lib/domain/slp/profile.ts` for the profile rules and clock-change days).
 * @module
 */
import { generateProfileForecast } from "../domain/slp/profile.ts";
import { retryKv } from "../store/kv.ts";
import { type DayState, emptyDay, recordStep, withDayLock } from "./day_state.ts";
import { forecastKey, forecastsOfDay, type StoredForecast } from "./forecasts.ts";
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
const round3 = (v: number) => Math.round(v * 1000) / 1000;

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
  return withDayLock(day, () =>
    retryKv(`generate forecasts for ${day}`, async () => {
      const dayEntry = await kv.get<DayState>(["days", day]);
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
        const values = generateProfileForecast(
          loc.standard_load_profile,
          loc.annual_kwh,
          day,
          opts.region,
        ).map(round3);
        if (
          prev && prev.values.length === values.length &&
          prev.values.every((v, i) => v === values[i])
        ) {
          unchanged++;
          continue;
        }
        writes.push([loc.malo_id, { values, source: "generated", received_at: at, by: opts.by }]);
      }
      const state = dayEntry.value ?? emptyDay(day);
      let version = state.input_version;
      if (writes.length) {
        version++;
        const bumped: DayState = {
          ...state,
          input_version: version,
          last_input: { at, by: opts.by, market_locations: writes.length, source: "generated" },
        };
        const r = await kv.atomic().check(dayEntry).set(["days", day], bumped).commit();
        if (!r.ok) return undefined;
        let stamp = r.versionstamp;
        for (let i = 0; i < writes.length; i += BATCH) {
          const op = kv.atomic().check({ key: ["days", day], versionstamp: stamp });
          for (const [malo, f] of writes.slice(i, i + BATCH)) {
            if (f) op.set(forecastKey(day, malo), f);
            else op.delete(forecastKey(day, malo));
          }
          const w = await op.commit();
          if (!w.ok) return undefined; // a customer forecast arrived: read again
          stamp = (await kv.get(["days", day])).versionstamp ?? stamp;
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
