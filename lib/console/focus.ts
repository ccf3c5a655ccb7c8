/**
 * The day an attention item points at (docs/console.md, "Attention"): the summary sets it, the
 * delivery-day overview selects that day and scrolls its row into view. A module-level signal,
 * shared by the islands of the one bundle.
 * @module
 */
import { signal } from "@preact/signals";

/** The day asked for and a counter, so asking again for the same day scrolls again. */
export const focusDay = signal<{ day: string; n: number } | null>(null);

/** Asks the overview to select `day` (`YYYY-MM-DD`) and bring it into view. */
export function requestFocus(day: string): void {
  focusDay.value = { day, n: (focusDay.peek()?.n ?? 0) + 1 };
}
