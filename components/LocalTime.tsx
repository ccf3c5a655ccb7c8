/**
 * An instant shown in the operator's local time, with the UTC instant on hover (`title`) and in
 * the machine-readable `datetime` attribute.
 * @module
 */
import { formatLocal, formatLocalFull, formatUtc } from "../lib/console/format.ts";
import { now, today } from "../lib/console/session.ts";

/** Props of {@link LocalTime}. */
export interface LocalTimeProps {
  /** ISO-8601 instant. */
  iso: string;
  /** Always show the date (default: only when it is not today). */
  full?: boolean;
  /** Time zone (default: the browser's); for tests. */
  timeZone?: string;
}

/** `<time>` with the local wall-clock time and the UTC instant as its tooltip. */
export function LocalTime({ iso, full, timeZone }: LocalTimeProps) {
  void today.value; // re-render when the local day changes
  const text = full ? formatLocalFull(iso, timeZone) : formatLocal(iso, now.peek(), timeZone);
  return <time dateTime={iso} title={formatUtc(iso)}>{text}</time>;
}
