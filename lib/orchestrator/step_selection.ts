/**
 * Which steps the orchestrator runs for a delivery day (docs/orchestrator.md, the
 * table under "Pass"): the decision alone, on a day state already read. The orchestrator reads
 * the state from KV and asks these functions; they read nothing themselves.
 * @module
 */
import type { DayState } from "../pipeline/day_state.ts";
import type { RunnableStep } from "../pipeline/steps.ts";

/**
 * The steps a day needs, in order, as planned at the start of its pass: `forecast` first unless
 * the recorded forecast step is current — it consumed the day's `input_version` (or a later one)
 * and ran on master-data version `masterVersion` — then always `aggregate`, `publish` and
 * `submit`, each of which is checked again with {@link stepNeeded} on the state read just before
 * it (whatever the forecast step changes bumps the input version).
 * @param state the day's stored state; `null` when nothing has happened to the day yet
 * @param masterVersion the current master-data version (`["meta", "market_locations_version"]`)
 */
export function plannedSteps(state: DayState | null, masterVersion: number): RunnableStep[] {
  const v = state?.input_version ?? 0;
  const forecast = (state?.steps ?? {}).forecast;
  const forecastCurrent = forecast !== undefined && forecast.version >= v &&
    forecast.detail.master_version === masterVersion;
  const steps: RunnableStep[] = forecastCurrent ? [] : ["forecast"];
  steps.push("aggregate", "publish", "submit");
  return steps;
}

/**
 * Whether `step` must run now, given the state read just before it (docs/pipeline.md,
 * "Orchestrator"): `forecast` always (it was planned by {@link plannedSteps}); `aggregate` when
 * never run or behind the input version; `publish` and `submit` when there is an aggregate and the
 * last publish or submission carried an older aggregate version.
 * @param state the day's stored state; `null` when nothing has happened to the day yet
 */
export function stepNeeded(state: DayState | null, step: RunnableStep): boolean {
  const v = state?.input_version ?? 0;
  const s = state?.steps ?? {};
  const aggVersion = s.aggregated?.version;
  switch (step) {
    case "forecast":
      return true;
    case "aggregate":
      return !s.aggregated || s.aggregated.version < v;
    case "publish":
      return aggVersion !== undefined && (!s.published || s.published.version < aggVersion);
    case "submit":
      return aggVersion !== undefined && (!s.submitted || s.submitted.version < aggVersion);
  }
}
