/**
 * Time left to a deadline (gate closure), following the session clock: drawn again only when its
 * text changes (every minute, every second in the last hour), not at every tick.
 * @module
 */
import { useComputed } from "@preact/signals";
import { useRef } from "preact/hooks";
import {
  formatBerlinHm,
  formatCountdown,
  formatLocalFull,
  formatUtc,
} from "../lib/console/format.ts";
import { now } from "../lib/console/session.ts";

/** The class and the text of a countdown to `iso` at `nowMs`; urgent under an hour. */
export function countdownView(iso: string, nowMs: number): { cls: string; text: string } {
  const target = Date.parse(iso);
  const left = target - nowMs;
  const cls = left < 0 ? "countdown passed" : left < 3_600_000 ? "countdown urgent" : "countdown";
  return { cls, text: `${formatBerlinHm(iso)} Berlin · ${formatCountdown(target, nowMs)}` };
}

/** `12:00 Berlin · in 3 h 12 min` / `… · passed 2 h 5 min ago`. */
export function Countdown({ iso, timeZone }: { iso: string; timeZone?: string }) {
  const at = useRef(iso);
  at.current = iso;
  const view = useComputed(() => JSON.stringify(countdownView(at.current, now.value)));
  // (A day's deadline does not change; a new one would show from the next tick on.)
  const shown = JSON.parse(view.value) as ReturnType<typeof countdownView>;
  return (
    <span class={shown.cls}>
      <time
        dateTime={iso}
        title={`${formatLocalFull(iso, timeZone)} your time · ${formatUtc(iso)}`}
      >
        {shown.text}
      </time>
    </span>
  );
}
