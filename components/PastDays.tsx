/**
 * The days after delivery at the top of the delivery days (docs/console_after_delivery.md):
 * yesterday and the six days before it, newest first, each a button that opens the day's
 * settlement right below (its quarter-hours, cost and imbalance), so yesterday is one tap from
 * the first screen on a phone too, and the table below keeps today and the days to come. Older
 * days: the month in "After delivery" at the end of the page. Each entry carries the id
 * `day-<date>`, as a row of the table does, so the attention summary's links reach it.
 * @module
 */
import { addDays, relativeDay, weekdayDate } from "../lib/console/day_texts.ts";

/** How many days before today are offered. */
export const PAST_DAYS = 7;

/** The past days offered at `today` (`YYYY-MM-DD`, Berlin): yesterday first. */
export function pastDays(today: string, n = PAST_DAYS): string[] {
  return Array.from({ length: n }, (_, i) => addDays(today, -(i + 1)));
}

/** Props of {@link PastDays}. */
export interface PastDaysProps {
  /** The days, newest first (see {@link pastDays}). */
  days: readonly string[];
  /** The day shown, or `null`. */
  selected: string | null;
  onSelect: (day: string) => void;
  /** The clock (ms), for "yesterday". */
  nowMs: number;
}

/** The list of buttons. */
export function PastDays({ days, selected, onSelect, nowMs }: PastDaysProps) {
  return (
    <nav class="past-days" aria-labelledby="past-days">
      <h3 id="past-days" tabIndex={-1}>
        Past days <span class="muted">· cost and quarter-hours after delivery</span>
      </h3>
      <ul>
        {days.map((d) => {
          const rel = relativeDay(d, nowMs);
          return (
            <li key={d} id={`day-${d}`} data-day={d}>
              <button
                type="button"
                class="btn btn-small"
                aria-pressed={selected === d ? "true" : "false"}
                onClick={() => onSelect(d)}
              >
                {weekdayDate(d)}
                {rel && <strong>{` · ${rel}`}</strong>}
              </button>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
