/**
 * The day an attention item points at (docs/console_attention.md): the summary sets it, the
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

/** Frames (about half a second) during which a day row keeps the focus it was given. */
const HOLD_FRAMES = 30;

/**
 * Brings `day`'s row into view and puts the keyboard focus on its button, as soon as the row is
 * there; for {@link HOLD_FRAMES} frames after, gives the focus back to the row when a re-render
 * dropped it (focus on the page body: the button it was on was replaced), never taking it from
 * where the operator moved it.
 */
export function focusDayRow(day: string, left = HOLD_FRAMES, given = false): void {
  const doc = globalThis.document;
  if (!doc) return;
  const row = doc.getElementById(`day-${day}`);
  const button = row?.querySelector<HTMLButtonElement>("button");
  const active = doc.activeElement;
  const dropped = !active || active === doc.body || !active.isConnected;
  if (button && (!given || (dropped && active !== button))) {
    if (!given) row!.scrollIntoView({ block: "center" });
    button.focus({ preventScroll: true });
    given = true;
  }
  if (left > 0 && globalThis.requestAnimationFrame) {
    globalThis.requestAnimationFrame(() => focusDayRow(day, left - 1, given));
  }
}

/**
 * Scrolls the element with id `id` (a heading with `tabIndex={-1}`) to the top and puts the
 * keyboard focus on it: an in-page link's target that the next Tab continues from.
 */
export function revealSection(id: string): void {
  const h = globalThis.document?.getElementById(id);
  h?.scrollIntoView({ block: "start" });
  h?.focus({ preventScroll: true });
}
