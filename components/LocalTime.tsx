/**
 * An instant shown in the operator's local time, with the UTC instant on hover (`title`) and in
 * the machine-readable `datetime` attribute.
 * @module
 */
import { formatLocal, formatLocalFull, formatUtc, MARKET_ZONE } from "../lib/console/format.ts";
import { now, today } from "../lib/console/session.ts";

/** Props of {@link LocalTime}. */
export interface LocalTimeProps {
  /** ISO-8601 instant. */
  iso: string;
  /** Always show the date (default: only when it is not today). */
  full?: boolean;
  /** Time zone (default: Europe/Berlin, the market's time; the browser's own is in the tooltip). */
  timeZone?: string;
}

/** `<time>` with the local wall-clock time and the UTC instant as its tooltip. */
export function LocalTime({ iso, full, timeZone }: LocalTimeProps) {
  void today.value; // re-render when the local day changes
  const zone = timeZone ?? MARKET_ZONE;
  const text = full ? formatLocalFull(iso, zone) : formatLocal(iso, now.peek(), zone);
  return (
    <time dateTime={iso} title={`${formatLocalFull(iso)} your time · ${formatUtc(iso)}`}>
      {text}
    </time>
  );
}
