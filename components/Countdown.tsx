/**
 * Time left to a deadline (gate closure), ticking with the session clock.
 * @module
 */
import {
  formatBerlinHm,
  formatCountdown,
  formatLocalFull,
  formatUtc,
} from "../lib/console/format.ts";
import { now } from "../lib/console/session.ts";

/** `closes in 3 h 12 min` / `closed 2 h ago`; urgent under an hour. */
export function Countdown({ iso, timeZone }: { iso: string; timeZone?: string }) {
  const target = Date.parse(iso);
  const left = target - now.value;
  const cls = left < 0 ? "countdown passed" : left < 3_600_000 ? "countdown urgent" : "countdown";
  return (
    <span class={cls}>
      <time
        dateTime={iso}
        title={`${formatLocalFull(iso, timeZone)} your time · ${formatUtc(iso)}`}
      >
        {`${formatBerlinHm(iso)} Berlin · ${formatCountdown(target, now.value)}`}
      </time>
    </span>
  );
}
