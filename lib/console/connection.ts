/**
 * What the console says about its connection to the service and about times the last answer
 * promised (docs/architecture.md, "Console"): "connection lost since 21:14 Berlin, retrying",
 * and "next pass 21:15 Berlin — overdue" once that time has passed without a newer answer.
 * Pure, so tests give the instants.
 * @module
 */
import { formatBerlinHm } from "./format.ts";

/**
 * Seconds a promised pass may lie in the past before it is called overdue while connected: the
 * status is re-read every 30 s and a pass takes a while, so a few seconds late is normal.
 */
export const OVERDUE_GRACE_S = 90;

/** `connection lost since 21:14 Berlin, retrying` (`sinceMs`: ms since the epoch). */
export function connectionLostText(sinceMs: number): string {
  return `connection lost since ${
    formatBerlinHm(new Date(sinceMs).toISOString())
  } Berlin, retrying`;
}

/**
 * `next pass 21:15 Berlin`, or with ` — overdue` when that instant has passed: at once while the
 * connection is lost (nothing newer can come), else after {@link OVERDUE_GRACE_S}.
 * @param iso the promised instant (UTC ISO-8601)
 * @param nowMs the browser's clock, ms since the epoch
 */
export function nextPassText(
  iso: string,
  nowMs: number,
  connectionLost: boolean,
): { text: string; overdue: boolean } {
  const late = nowMs - Date.parse(iso);
  const overdue = late > (connectionLost ? 0 : OVERDUE_GRACE_S * 1000);
  return { text: `next pass ${formatBerlinHm(iso)} Berlin${overdue ? " — overdue" : ""}`, overdue };
}
