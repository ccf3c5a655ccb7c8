/**
 * The sources of the state gauges that read other parts' state (docs/metrics.md, "State"):
 * today's locked deviation per control area from the day's schedules (docs/intraday.md,
 * "Version history") and the store's size facts from retention (docs/retention.md, "Status").
 * @module
 */
import type { Clock } from "../clock.ts";
import { localDayOf } from "../domain/delivery_day.ts";
import { scheduleEntries } from "../pipeline/schedule_view.ts";
import type { RetentionFacts } from "../retention/facts.ts";
import type { StoreFacts } from "./state_gauges.ts";

/**
 * Today's locked deviation (MWh) per control area EIC with a schedule document; today is the
 * Europe/Berlin date of `clock`. An area whose day has no aggregate yet is left out (its
 * deviation is unknown, not 0).
 * @param leadMinutes the intraday lead time in force (minutes): what counts as frozen now
 */
export function lockedDeviationSource(
  kv: Deno.Kv,
  clock: Clock,
  leadMinutes: () => Promise<number>,
): () => Promise<Record<string, number>> {
  return async () => {
    const now = clock.now();
    const entries = await scheduleEntries(kv, localDayOf(now), now, await leadMinutes());
    const out: Record<string, number> = {};
    for (const e of entries) {
      if (e.locked_deviation_mwh !== null) out[e.control_area] = e.locked_deviation_mwh;
    }
    return out;
  };
}

/** The store's size facts as the gauges read them; `null` before retention's first count. */
export function storeFactsSource(
  facts: { current(): Promise<Readonly<RetentionFacts> | null> },
): () => Promise<StoreFacts | null> {
  return async () => {
    const f = await facts.current();
    return f && {
      days_kept: f.days_kept,
      oldest_day: f.oldest_day,
      events_kept: f.events_kept,
      last_pruning_at: f.last_pruning?.at ?? null,
    };
  };
}
