/**
 * Actuals and weather that the learned forecasts read make the days of their horizon stale
 * (docs/pipeline.md, "Day state and staleness"): an accepted delivery bumps the `input_version`
 * (and `external_version`) of every stored day from today to the end of the last refresh's
 * horizon that has a recorded step, with `last_input.source` `actuals` or `weather`, so the
 * orchestrator runs the forecast step, which refits the locations whose inputs changed
 * (`./learned_refresh.ts`). Weather bumps only when one of its points is read by a learned
 * location (the last refresh's summary lists them, with how many read each); actuals only when
 * there is a metered location the service forecasts at all. A store without metered locations,
 * or a point nobody reads, changes no day.
 * @module
 */
import { localDayOf } from "../domain/delivery_day.ts";
import { KEYS } from "../store/keys.ts";
import { type DayState, inputChanged, updateDay } from "./day_state.ts";
import { readModelsSummary } from "./forecast_models.ts";

/** What arrived. */
export type LearnedInput =
  | { source: "actuals"; market_locations: number }
  | { source: "weather"; points: readonly string[] };

/**
 * Marks the learned forecasts' days stale after an accepted delivery.
 * @returns the days bumped (none when nothing learned reads the delivery)
 */
export async function markLearnedInputs(
  kv: Deno.Kv,
  input: LearnedInput,
  at: { nowMs: number; by: string },
): Promise<string[]> {
  const summary = await readModelsSummary(kv);
  if (!summary || summary.locations === 0) return [];
  const n = input.source === "weather"
    ? input.points.reduce((sum, p) => sum + (summary.points[p] ?? 0), 0)
    : input.market_locations;
  if (n === 0) return [];
  const today = localDayOf(at.nowMs);
  const last = summary.days.at(-1) ?? today;
  const days: string[] = [];
  for await (const e of kv.list<DayState>(KEYS.daysFrom(today))) {
    const day = e.key[1] as string;
    if (day > last) break;
    if (Object.keys(e.value.steps).length) days.push(day);
  }
  const change = {
    at: new Date(at.nowMs).toISOString(),
    by: at.by,
    market_locations: n,
    source: input.source,
  };
  for (const day of days) {
    await updateDay(kv, day, (s) => Promise.resolve({ state: inputChanged(s, change), result: 0 }));
  }
  return days;
}
