/**
 * The phase line of a day's schedules ("intraday v7 · frozen until 10:30 Berlin · 4 of 4
 * confirmed", docs/console.md, "Intraday"), whose "frozen until" moves with the clock (now + the
 * lead time). Rendered again when the day changes or the frozen part does (at a quarter-hour),
 * not at every tick of the clock.
 * @module
 */
import { useComputed } from "@preact/signals";
import type { DayOverview } from "../lib/console/types.ts";
import { frozenNowBefore, phaseLine } from "../lib/console/intraday_texts.ts";
import { now } from "../lib/console/session.ts";

/** Props of {@link PhaseLine}. */
export interface PhaseLineProps {
  day: DayOverview;
  /** The element's classes (`tso-line`: a `<span>` in a row, else a `<p>`). */
  class: string;
  /** A fixed clock (ms since the epoch; tests, the server); default the page's ticking clock. */
  nowMs?: number;
}

/** The line, or nothing when no schedule was handed to a TSO. */
export function PhaseLine(p: PhaseLineProps) {
  const lead = p.day.intraday_lead_minutes;
  // The clock is read through the frozen part only: it changes once a quarter-hour.
  const ticking = useComputed(() =>
    lead === undefined ? undefined : frozenNowBefore(now.value, lead)
  );
  const frozen = p.nowMs !== undefined && lead !== undefined
    ? frozenNowBefore(p.nowMs, lead)
    : ticking.value;
  const text = phaseLine(p.day, frozen);
  if (!text) return null;
  return p.class.includes("tso-line")
    ? <span class={p.class}>{text}</span>
    : <p class={p.class}>{text}</p>;
}
